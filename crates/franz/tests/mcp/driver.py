"""An MCP client driven line by line, for crates/franz/tests/mcp.rs.

It connects to `franz mcp` with the official Python SDK (`mcp`, scripts/requirements-test.txt)
over stdio (it starts franz itself) or streamable HTTP (franz already listens), in the
handshake revision (`--mode legacy`: an `initialize` request) or the stateless one
(`--mode 2026-07-28`). Then it reads one JSON command a line on stdin and answers each with
one JSON line on stdout, so the Rust test can check the desktop (the witness window, an
xterm) between calls.

Commands: {"op": "list_tools"}, {"op": "call", "tool": T, "args": {...}} (any tool: the
window tools list_windows and focus_window and elements too; the test runs the driver inside a
private D-Bus session for elements, where the accessibility registry may print a line that is
not JSON on the same stdout),
{"op": "run_task", "args": {...}, "cancel_after": N (optional)}, {"op": "list_resources"},
{"op": "read_resource", "uri": U}, {"op": "bench", "n": N}, {"op": "pid"},
{"op": "start", "tool": T, "args": {...}} (a call left running: answers {"started": N} once its
request was sent), {"op": "cancel", "id": N} (cancels it as a client does, and answers once the
call ended, with its result if one came first).
"""

import argparse
import base64
import json
import os
import sys
import time

import anyio
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError


def content_json(blocks):
    out = []
    for b in blocks:
        if b.type == "text":
            out.append({"type": "text", "text": b.text})
        elif b.type == "image":
            out.append({"type": "image", "mime": b.mime_type, "data": b.data})
        else:
            out.append({"type": b.type})
    return out


async def call(client, tool, args):
    try:
        r = await client.call_tool(tool, args)
    except MCPError as e:
        return {"mcp_error": str(e), "code": e.code}
    return {"is_error": bool(r.is_error), "content": content_json(r.content)}


async def run_task(client, args, cancel_after, during):
    """Calls run_task; cancels it after `cancel_after` progress notifications; calls the
    tool `during` names once the first progress notification came."""
    progress = []
    result = {}
    done = anyio.Event()
    first = anyio.Event()

    async def on_progress(p, total, message):
        progress.append({"progress": p, "message": message})
        first.set()
        if cancel_after is not None and len(progress) >= cancel_after:
            done.set()

    scope = anyio.CancelScope()

    async def task():
        with scope:
            result.update(await call_with_progress(client, args, on_progress))
        done.set()
        first.set()

    async def meanwhile():
        await first.wait()
        if not result:
            result["during"] = await call(client, during["tool"], during.get("args", {}))

    async with anyio.create_task_group() as tg:
        tg.start_soon(task)
        if during:
            tg.start_soon(meanwhile)
        await done.wait()
        cancelled = "is_error" not in result and "mcp_error" not in result
        if cancelled:
            scope.cancel()
    return {"progress": progress, "cancelled": cancelled, **result}


STARTED = {}


async def start(tg, client, tool, args):
    """Calls `tool` in the background; returns once the request went out (every task of the
    client is waiting), so that a cancel sent after it follows the request."""
    n = len(STARTED) + 1
    entry = {"scope": anyio.CancelScope(), "done": anyio.Event(), "result": None}

    async def run():
        with entry["scope"]:
            entry["result"] = await call(client, tool, args)
        entry["done"].set()

    tg.start_soon(run)
    STARTED[n] = entry
    await anyio.wait_all_tasks_blocked()
    return {"started": n}


async def cancel(n):
    entry = STARTED[n]
    entry["scope"].cancel()
    await entry["done"].wait()
    return {"cancelled": entry["result"] is None, "result": entry["result"]}


async def call_with_progress(client, args, on_progress):
    try:
        r = await client.call_tool("run_task", args, progress_callback=on_progress)
    except MCPError as e:
        return {"mcp_error": str(e), "code": e.code}
    return {"is_error": bool(r.is_error), "content": content_json(r.content)}


async def handle(tg, client, cmd):
    op = cmd["op"]
    if op == "start":
        return await start(tg, client, cmd["tool"], cmd.get("args", {}))
    if op == "cancel":
        return await cancel(cmd["id"])
    if op == "list_tools":
        r = await client.list_tools()
        return {
            "tools": [
                {"name": t.name, "description": t.description, "inputSchema": t.input_schema}
                for t in r.tools
            ]
        }
    if op == "call":
        return await call(client, cmd["tool"], cmd.get("args", {}))
    if op == "run_task":
        return await run_task(client, cmd["args"], cmd.get("cancel_after"), cmd.get("during"))
    if op == "list_resources":
        r = await client.list_resources(cache_mode="bypass")
        return {"resources": [{"uri": str(x.uri), "mime": x.mime_type} for x in r.resources]}
    if op == "read_resource":
        try:
            r = await client.read_resource(cmd["uri"], cache_mode="bypass")
        except MCPError as e:
            return {"mcp_error": str(e), "code": e.code}
        c = r.contents[0]
        return {"text": getattr(c, "text", None), "mime": c.mime_type}
    if op == "bench":
        times = []
        for _ in range(cmd["n"]):
            t0 = time.perf_counter()
            r = await client.call_tool("screenshot", {})
            times.append((time.perf_counter() - t0) * 1000.0)
            if r.is_error:
                return {"error": content_json(r.content)}
        return {"ms": times}
    if op == "pid":
        return {"pid": os.getpid()}
    return {"error": f"unknown op {op}"}


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", default="legacy")
    ap.add_argument("--url")
    ap.add_argument("--token")
    ap.add_argument("--origin")
    ap.add_argument("franz", nargs="*")
    a = ap.parse_args()
    if a.url:
        headers = {}
        if a.token:
            headers["Authorization"] = f"Bearer {a.token}"
        if a.origin:
            headers["Origin"] = a.origin
        server = streamable_http_client(a.url, http_client=create_mcp_http_client(headers=headers))
    else:
        server = StdioServerParameters(command=a.franz[0], args=a.franz[1:], env=dict(os.environ))
    async with Client(server, mode=a.mode, cache=None) as client:
        print(json.dumps({"ready": True, "protocol": client.protocol_version}), flush=True)
        async with anyio.create_task_group() as tg:
            while True:
                line = await anyio.to_thread.run_sync(sys.stdin.readline)
                if not line:
                    break
                if not line.strip():
                    continue
                try:
                    out = await handle(tg, client, json.loads(line))
                except Exception as e:  # the test reads what went wrong
                    out = {"exception": f"{type(e).__name__}: {e}"}
                print(json.dumps(out), flush=True)
            tg.cancel_scope.cancel()


anyio.run(main)
