//! The Win32 side of `win_probe` (see main.rs).

use std::ffi::c_void;
use std::io::Write;
use windows_sys::Win32::Foundation::{HWND, LPARAM, LRESULT, POINT, RECT, WPARAM};
use windows_sys::Win32::Graphics::Gdi::{
    BI_RGB, BITMAPINFO, BITMAPINFOHEADER, BitBlt, COLOR_WINDOW, ClientToScreen, CreateCompatibleDC,
    CreateDIBSection, DIB_RGB_COLORS, GetDC, HBRUSH, SRCCOPY, SelectObject,
};
use windows_sys::Win32::System::LibraryLoader::GetModuleHandleW;
use windows_sys::Win32::UI::HiDpi::{
    DPI_AWARENESS_CONTEXT_PER_MONITOR_AWARE, DPI_AWARENESS_CONTEXT_PER_MONITOR_AWARE_V2,
    SetProcessDpiAwarenessContext,
};
use windows_sys::Win32::UI::Input::KeyboardAndMouse::SetFocus;
use windows_sys::Win32::UI::WindowsAndMessaging::*;
use windows_sys::core::BOOL;

pub fn main() -> i32 {
    // SAFETY: plain calls with constant arguments.
    unsafe {
        if SetProcessDpiAwarenessContext(DPI_AWARENESS_CONTEXT_PER_MONITOR_AWARE_V2) == 0 {
            SetProcessDpiAwarenessContext(DPI_AWARENESS_CONTEXT_PER_MONITOR_AWARE);
        }
    }
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("grab") if args.len() == 3 => grab(&args[2]),
        Some("witness") if args.len() == 6 => {
            let n: Vec<i32> = args[2..6].iter().map(|a| a.parse().unwrap()).collect();
            witness(n[0], n[1], n[2], n[3])
        }
        Some("find") if args.len() == 3 => find(&args[2]),
        Some("combo") if args.len() == 3 => combo(&args[2]),
        Some("form") if args.len() == 7 => {
            let n: Vec<i32> = args[2..6].iter().map(|a| a.parse().unwrap()).collect();
            form(n[0], n[1], n[2], n[3], &args[6])
        }
        Some("foreground") if args.len() == 2 => foreground(),
        Some("start-button") if args.len() == 2 => start_button(),
        Some("menu") if args.len() == 2 => menu(),
        Some("close-desktop") if args.len() == 2 => close_desktop(),
        _ => {
            eprintln!(
                "usage: win_probe grab OUT.bgra | witness X Y W H | find TITLE | combo LABEL \
                 | form X Y W H TITLE | foreground | start-button | menu | close-desktop"
            );
            2
        }
    }
}

fn grab(out: &str) -> i32 {
    // SAFETY: plain GDI calls on handles made here; `bits` is the DIB's memory.
    unsafe {
        let w = GetSystemMetrics(SM_CXSCREEN);
        let h = GetSystemMetrics(SM_CYSCREEN);
        let screen = GetDC(std::ptr::null_mut());
        let mem = CreateCompatibleDC(screen);
        let mut bmi: BITMAPINFO = std::mem::zeroed();
        bmi.bmiHeader = BITMAPINFOHEADER {
            biSize: size_of::<BITMAPINFOHEADER>() as u32,
            biWidth: w,
            biHeight: -h,
            biPlanes: 1,
            biBitCount: 32,
            biCompression: BI_RGB,
            ..bmi.bmiHeader
        };
        let mut bits: *mut c_void = std::ptr::null_mut();
        let dib = CreateDIBSection(
            mem,
            &bmi,
            DIB_RGB_COLORS,
            &mut bits,
            std::ptr::null_mut(),
            0,
        );
        assert!(!dib.is_null() && !bits.is_null(), "CreateDIBSection failed");
        SelectObject(mem, dib);
        assert!(
            BitBlt(mem, 0, 0, w, h, screen, 0, 0, SRCCOPY) != 0,
            "BitBlt failed"
        );
        let len = (w * h * 4) as usize;
        let pixels = std::slice::from_raw_parts(bits.cast::<u8>(), len);
        let mut file = Vec::with_capacity(8 + len);
        file.extend_from_slice(&(w as u32).to_le_bytes());
        file.extend_from_slice(&(h as u32).to_le_bytes());
        file.extend_from_slice(pixels);
        std::fs::write(out, file).unwrap();
        let mut p = POINT { x: 0, y: 0 };
        GetCursorPos(&mut p);
        println!("{w} {h} {} {}", p.x, p.y);
    }
    0
}

fn say(line: String) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// Screen coordinates of a client-area mouse message.
fn client_point(hwnd: HWND, lparam: LPARAM) -> (i32, i32) {
    let mut p = POINT {
        x: i32::from(lparam as u16 as i16),
        y: i32::from((lparam >> 16) as u16 as i16),
    };
    // SAFETY: `p` is a valid POINT; hwnd is our window.
    unsafe { ClientToScreen(hwnd, &mut p) };
    (p.x, p.y)
}

unsafe extern "system" fn wndproc(hwnd: HWND, msg: u32, wparam: WPARAM, lparam: LPARAM) -> LRESULT {
    let click = |name: &str| {
        let (x, y) = client_point(hwnd, lparam);
        say(format!("{name} {x} {y}"));
    };
    match msg {
        WM_LBUTTONDOWN => click("ldown"),
        WM_LBUTTONUP => click("lup"),
        WM_RBUTTONDOWN => click("rdown"),
        WM_RBUTTONUP => click("rup"),
        WM_MBUTTONDOWN => click("mdown"),
        WM_MBUTTONUP => click("mup"),
        WM_MOUSEMOVE if wparam & 0x0001 != 0 => click("drag"), // MK_LBUTTON
        WM_MOUSEWHEEL | WM_MOUSEHWHEEL => {
            // Wheel messages carry screen coordinates already.
            let x = i32::from(lparam as u16 as i16);
            let y = i32::from((lparam >> 16) as u16 as i16);
            let delta = (wparam >> 16) as u16 as i16;
            let name = if msg == WM_MOUSEWHEEL {
                "wheel"
            } else {
                "hwheel"
            };
            say(format!("{name} {x} {y} {delta}"));
        }
        WM_KEYDOWN | WM_SYSKEYDOWN => say(format!("keydown {wparam}")),
        WM_KEYUP | WM_SYSKEYUP => say(format!("keyup {wparam}")),
        WM_CHAR => say(format!("char {wparam}")),
        WM_TIMER => {
            // SAFETY: our window.
            unsafe { DestroyWindow(hwnd) };
        }
        WM_DESTROY => {
            // SAFETY: plain call.
            unsafe { PostQuitMessage(0) };
        }
        // SAFETY: the default handler for everything else.
        _ => return unsafe { DefWindowProcW(hwnd, msg, wparam, lparam) },
    }
    0
}

fn witness(x: i32, y: i32, w: i32, h: i32) -> i32 {
    let class: Vec<u16> = "franz_witness\0".encode_utf16().collect();
    // SAFETY: a plain window class and window; the message loop runs until WM_QUIT.
    unsafe {
        let instance = GetModuleHandleW(std::ptr::null());
        let wc = WNDCLASSW {
            style: 0,
            lpfnWndProc: Some(wndproc),
            cbClsExtra: 0,
            cbWndExtra: 0,
            hInstance: instance,
            hIcon: std::ptr::null_mut(),
            hCursor: LoadCursorW(std::ptr::null_mut(), IDC_ARROW),
            hbrBackground: (COLOR_WINDOW + 1) as usize as HBRUSH,
            lpszMenuName: std::ptr::null(),
            lpszClassName: class.as_ptr(),
        };
        assert!(RegisterClassW(&wc) != 0, "RegisterClassW failed");
        let hwnd = CreateWindowExW(
            WS_EX_TOPMOST,
            class.as_ptr(),
            class.as_ptr(),
            WS_POPUP | WS_VISIBLE,
            x,
            y,
            w,
            h,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            instance,
            std::ptr::null(),
        );
        assert!(!hwnd.is_null(), "CreateWindowExW failed");
        SetForegroundWindow(hwnd);
        SetTimer(hwnd, 1, 120_000, None);
        let mut r = std::mem::zeroed();
        GetWindowRect(hwnd, &mut r);
        say(format!(
            "ready {} {} {} {}",
            r.left,
            r.top,
            r.right - r.left,
            r.bottom - r.top
        ));
        let mut msg = std::mem::zeroed();
        while GetMessageW(&mut msg, std::ptr::null_mut(), 0, 0) > 0 {
            TranslateMessage(&msg);
            DispatchMessageW(&msg);
        }
    }
    0
}

unsafe extern "system" fn collect(hwnd: HWND, list: LPARAM) -> BOOL {
    // SAFETY: `list` is the `&mut Vec<HWND>` passed by `enumerate` below.
    unsafe { (*(list as *mut Vec<HWND>)).push(hwnd) };
    1
}

/// The visible top-level windows (`None`) or the visible descendants of a window.
fn enumerate(parent: Option<HWND>) -> Vec<HWND> {
    let mut list: Vec<HWND> = Vec::new();
    let arg = &raw mut list as LPARAM;
    // SAFETY: `collect` only pushes into `list`, which outlives the call.
    unsafe {
        match parent {
            None => EnumWindows(Some(collect), arg),
            Some(p) => EnumChildWindows(p, Some(collect), arg),
        };
    }
    // SAFETY: plain query.
    list.retain(|&h| unsafe { IsWindowVisible(h) } != 0);
    list
}

/// A window's caption (for another process's control: the text it was created with).
fn caption(hwnd: HWND) -> String {
    let mut buf = [0u16; 512];
    // SAFETY: `buf` holds `buf.len()` units.
    let n = unsafe { GetWindowTextW(hwnd, buf.as_mut_ptr(), buf.len() as i32) };
    String::from_utf16_lossy(&buf[..n.max(0) as usize])
}

/// What a control shows now (WM_GETTEXT, answered by the owning process).
fn shown_text(hwnd: HWND) -> String {
    let mut buf = [0u16; 512];
    // SAFETY: WM_GETTEXT writes at most `buf.len()` units into `buf`.
    let n = unsafe { SendMessageW(hwnd, WM_GETTEXT, buf.len(), buf.as_mut_ptr() as LPARAM) };
    String::from_utf16_lossy(&buf[..(n.max(0) as usize).min(buf.len())])
}

fn class(hwnd: HWND) -> String {
    let mut buf = [0u16; 256];
    // SAFETY: `buf` holds `buf.len()` units.
    let n = unsafe { GetClassNameW(hwnd, buf.as_mut_ptr(), buf.len() as i32) };
    String::from_utf16_lossy(&buf[..n.max(0) as usize])
}

fn rect(hwnd: HWND) -> (i32, i32, i32, i32) {
    let mut r = RECT {
        left: 0,
        top: 0,
        right: 0,
        bottom: 0,
    };
    // SAFETY: `r` is a valid out pointer.
    unsafe { GetWindowRect(hwnd, &mut r) };
    (r.left, r.top, r.right - r.left, r.bottom - r.top)
}

/// `find TITLE`: the first visible top-level window whose title contains TITLE, as
/// `X Y W H TITLE`; exit status 1 when there is none.
fn find(title: &str) -> i32 {
    for hwnd in enumerate(None) {
        let text = caption(hwnd);
        if text.contains(title) {
            let (x, y, w, h) = rect(hwnd);
            println!("{x} {y} {w} {h} {text}");
            return 0;
        }
    }
    1
}

/// `combo LABEL`: in any visible top-level window, the visible control captioned LABEL
/// (e.g. `Encoding:`) and the first ComboBox after it among its siblings, as
/// `X Y W H SHOWN` (its screen rect and the item it shows); exit status 1 when there is none.
fn combo(label: &str) -> i32 {
    for top in enumerate(None) {
        for hwnd in enumerate(Some(top)) {
            if caption(hwnd) != label {
                continue;
            }
            let mut next = hwnd;
            loop {
                // SAFETY: plain query; null ends the walk.
                next = unsafe { GetWindow(next, GW_HWNDNEXT) };
                if next.is_null() {
                    break;
                }
                if class(next).eq_ignore_ascii_case("ComboBox") {
                    let (x, y, w, h) = rect(next);
                    println!("{x} {y} {w} {h} {}", shown_text(next));
                    return 0;
                }
            }
        }
    }
    1
}

/// The `form` window's messages: button clicks and activation, printed.
unsafe extern "system" fn form_proc(
    hwnd: HWND,
    msg: u32,
    wparam: WPARAM,
    lparam: LPARAM,
) -> LRESULT {
    match msg {
        // BN_CLICKED (notification 0) from a button: lparam is the button's window
        WM_COMMAND if (wparam >> 16) & 0xffff == 0 && lparam != 0 => {
            say(format!("clicked {}", caption(lparam as HWND)));
        }
        WM_ACTIVATE => say(format!("active {}", u8::from(wparam & 0xffff != 0))),
        WM_TIMER => {
            // SAFETY: our window.
            unsafe { DestroyWindow(hwnd) };
        }
        WM_DESTROY => {
            // SAFETY: plain call.
            unsafe { PostQuitMessage(0) };
        }
        // SAFETY: the default handler for everything else.
        _ => return unsafe { DefWindowProcW(hwnd, msg, wparam, lparam) },
    }
    0
}

fn wide(s: &str) -> Vec<u16> {
    s.encode_utf16().chain([0]).collect()
}

/// The controls of a `form` window: class, text, style, client rect (x, y, w, h).
const CONTROLS: &[(&str, &str, u32, [i32; 4])] = &[
    ("Static", "Name:", 0, [20, 20, 80, 24]),
    (
        "Edit",
        "",
        WS_BORDER | ES_AUTOHSCROLL as u32,
        [110, 20, 200, 24],
    ),
    (
        "Button",
        "Remember me",
        BS_AUTOCHECKBOX as u32,
        [20, 60, 160, 24],
    ),
    ("Button", "&OK", BS_DEFPUSHBUTTON as u32, [20, 100, 90, 30]),
    ("Button", "Cancel", BS_PUSHBUTTON as u32, [130, 100, 90, 30]),
    (
        "Button",
        "Disabled",
        BS_PUSHBUTTON as u32 | WS_DISABLED,
        [240, 100, 90, 30],
    ),
];

/// `form X Y W H TITLE`: a normal window titled TITLE with a label, an edit box (focused), a
/// checked check box, two push buttons and a disabled one, as real child controls. Prints
/// `ready X Y W H` (its window rect), then `control CLASS X Y W H TEXT` per control
/// (`GetWindowRect`, screen pixels), then `controls end`; afterwards `active 1`/`active 0` as
/// it gains or loses the activation and `clicked TEXT` per button click. Exits after two
/// minutes.
fn form(x: i32, y: i32, w: i32, h: i32, title: &str) -> i32 {
    let class = wide("franz_form");
    let title = wide(title);
    // SAFETY: a plain window class, window and child controls; the loop runs until WM_QUIT.
    unsafe {
        let instance = GetModuleHandleW(std::ptr::null());
        let wc = WNDCLASSW {
            style: 0,
            lpfnWndProc: Some(form_proc),
            cbClsExtra: 0,
            cbWndExtra: 0,
            hInstance: instance,
            hIcon: std::ptr::null_mut(),
            hCursor: LoadCursorW(std::ptr::null_mut(), IDC_ARROW),
            hbrBackground: (COLOR_WINDOW + 1) as usize as HBRUSH,
            lpszMenuName: std::ptr::null(),
            lpszClassName: class.as_ptr(),
        };
        assert!(RegisterClassW(&wc) != 0, "RegisterClassW failed");
        let hwnd = CreateWindowExW(
            0,
            class.as_ptr(),
            title.as_ptr(),
            WS_OVERLAPPEDWINDOW | WS_VISIBLE,
            x,
            y,
            w,
            h,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            instance,
            std::ptr::null(),
        );
        assert!(!hwnd.is_null(), "CreateWindowExW failed");
        let mut made = Vec::new();
        for (i, (kind, text, style, [cx, cy, cw, ch])) in CONTROLS.iter().enumerate() {
            let (kind, text) = (wide(kind), wide(text));
            let child = CreateWindowExW(
                0,
                kind.as_ptr(),
                text.as_ptr(),
                WS_CHILD | WS_VISIBLE | WS_TABSTOP | style,
                *cx,
                *cy,
                *cw,
                *ch,
                hwnd,
                (100 + i) as _,
                instance,
                std::ptr::null(),
            );
            assert!(!child.is_null(), "CreateWindowExW (control) failed");
            made.push(child);
        }
        SendMessageW(made[2], BM_SETCHECK, 1, 0); // BST_CHECKED
        SetForegroundWindow(hwnd);
        SetFocus(made[1]);
        SetTimer(hwnd, 1, 120_000, None);
        let (rx, ry, rw, rh) = rect(hwnd);
        say(format!("ready {rx} {ry} {rw} {rh}"));
        for child in made {
            let (cx, cy, cw, ch) = rect(child);
            say(format!(
                "control {} {cx} {cy} {cw} {ch} {}",
                self::class(child),
                caption(child)
            ));
        }
        say("controls end".into());
        let mut msg = std::mem::zeroed();
        while GetMessageW(&mut msg, std::ptr::null_mut(), 0, 0) > 0 {
            TranslateMessage(&msg);
            DispatchMessageW(&msg);
        }
    }
    0
}

/// `foreground`: `X Y W H TITLE` of the foreground window (exit status 1: none).
fn foreground() -> i32 {
    // SAFETY: plain query.
    let hwnd = unsafe { GetForegroundWindow() };
    if hwnd.is_null() {
        return 1;
    }
    let (x, y, w, h) = rect(hwnd);
    println!("{x} {y} {w} {h} {}", caption(hwnd));
    0
}

/// `start-button`: the Start button of a Wine virtual desktop's taskbar (the window of class
/// `Shell_TrayWnd`): its owner-drawn button whose control id is 0 (the taskbar's other buttons
/// carry their window's handle as id), as `X Y W H`; exit status 1 when there is none.
fn start_button() -> i32 {
    for top in enumerate(None) {
        if class(top) != "Shell_TrayWnd" {
            continue;
        }
        for hwnd in enumerate(Some(top)) {
            // SAFETY: plain query.
            if unsafe { GetDlgCtrlID(hwnd) } == 0 && class(hwnd).eq_ignore_ascii_case("Button") {
                let (x, y, w, h) = rect(hwnd);
                println!("{x} {y} {w} {h}");
                return 0;
            }
        }
    }
    1
}

/// `menu`: the open popup menu (window class `#32768`) as `X Y W H ITEM|ITEM|...` (the
/// items' text, `&` marks left in); exit status 1 when no menu is open.
fn menu() -> i32 {
    for hwnd in enumerate(None) {
        if class(hwnd) != "#32768" {
            continue;
        }
        // SAFETY: MN_GETHMENU takes no arguments and answers the menu's handle.
        let hmenu = unsafe { SendMessageW(hwnd, MN_GETHMENU, 0, 0) } as HMENU;
        // SAFETY: plain query; a null or foreign handle gives -1.
        let count = unsafe { GetMenuItemCount(hmenu) };
        let items: Vec<String> = (0..count.max(0))
            .map(|i| {
                let mut buf = [0u16; 256];
                // SAFETY: `buf` holds `buf.len()` units.
                let n = unsafe {
                    GetMenuStringW(
                        hmenu,
                        i as u32,
                        buf.as_mut_ptr(),
                        buf.len() as i32,
                        MF_BYPOSITION,
                    )
                };
                String::from_utf16_lossy(&buf[..n.max(0) as usize])
            })
            .filter(|t| !t.is_empty())
            .collect();
        let (x, y, w, h) = rect(hwnd);
        println!("{x} {y} {w} {h} {}", items.join("|"));
        return 0;
    }
    1
}

/// `close-desktop`: ends this process's desktop when it is a Wine virtual desktop
/// (`explorer /desktop`): WM_CLOSE to the desktop window, then its process (that explorer) is
/// terminated, which a shell desktop needs; exit status 1 when that fails.
fn close_desktop() -> i32 {
    use windows_sys::Win32::Foundation::CloseHandle;
    use windows_sys::Win32::System::Threading::{OpenProcess, PROCESS_TERMINATE, TerminateProcess};
    // SAFETY: plain calls on the desktop window and a process handle opened here.
    unsafe {
        let desktop = GetDesktopWindow();
        let mut pid = 0u32;
        GetWindowThreadProcessId(desktop, &mut pid);
        PostMessageW(desktop, WM_CLOSE, 0, 0);
        let process = OpenProcess(PROCESS_TERMINATE, 0, pid);
        if pid == 0 || process.is_null() {
            return 1;
        }
        let ended = TerminateProcess(process, 0);
        CloseHandle(process);
        if ended != 0 { 0 } else { 1 }
    }
}
