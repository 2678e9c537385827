/* Test support for Wine 8: Rust's std (1.78+) imports ProcessPrng from bcryptprimitives.dll,
 * which Wine 8 lacks. This DLL provides it through advapi32's RtlGenRandom.
 * Built by scripts/windows.sh; never shipped: real Windows 10/11 has the DLL. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    while (len > 0) {
        ULONG chunk = len > 0x40000000 ? 0x40000000 : (ULONG)len;
        if (!SystemFunction036(data, chunk)) return FALSE;
        data += chunk;
        len -= chunk;
    }
    return TRUE;
}
