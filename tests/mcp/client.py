"""Drives `sandkeep mcp` with the official MCP Python SDK (a client nobody
here wrote). Usage: client.py SANDKEEP DATA AGENT BACKEND STEP

STEP "write": initialize, list tools, bash writes a file, append a note.
STEP "read":  a second server process for the same agent reads the file
              back and finds the note with mindlog_search.
Prints one JSON object with what it saw; the Rust test asserts on it.
"""
import asyncio
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def text_of(result):
    return "".join(getattr(c, "text", "") for c in result.content)


async def main(sandkeep, data, agent, backend, step):
    params = StdioServerParameters(
        command=sandkeep,
        args=["-q", "--data", data, "mcp", "--agent", agent, "--backend", backend],
        # The SDK passes only a safe subset of the environment: add the daemon's address.
        env={k: v for k, v in os.environ.items() if k == "DOCKER_HOST" or k.startswith("SANDKEEP_")},
    )
    seen = {}
    async with stdio_client(params) as streams:
        read, write = streams[0], streams[1]
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            seen["server"] = init.server_info.name
            tools = await session.list_tools()
            seen["tools"] = sorted(t.name for t in tools.tools)
            if step == "write":
                r = await session.call_tool("bash", {"command": "echo persisted-by-mcp > from_mcp.txt && wc -c < from_mcp.txt"})
                seen["bash"] = text_of(r)
                seen["bash_error"] = bool(r.is_error)
                r = await session.call_tool("mindlog_append", {"kind": "note", "text": "the launch code is banana"})
                seen["append_error"] = bool(r.is_error)
                r = await session.call_tool("bash", {"command": "exit 3"})
                seen["exit3"] = text_of(r)
                r = await session.call_tool("bash", {"command": "sleep 5", "timeout_ms": 300})
                seen["timeout_error"] = bool(r.is_error)
                r = await session.call_tool("bash", {"cmd": "oops"})
                seen["bad_args_error"] = bool(r.is_error)
                seen["bad_args"] = text_of(r)
                try:
                    await session.call_tool("no_such_tool", {})
                    seen["unknown_tool"] = "no error"
                except Exception as e:  # a JSON-RPC error
                    seen["unknown_tool"] = type(e).__name__ + ": " + str(e)
                r = await session.call_tool("bash", {"command": "echo still serving"})
                seen["after_errors"] = text_of(r)
            else:
                r = await session.call_tool("read_file", {"path": "from_mcp.txt"})
                seen["read"] = text_of(r)
                r = await session.call_tool("read_file", {"path": "missing.txt"})
                seen["missing_error"] = bool(r.is_error)
                r = await session.call_tool("mindlog_search", {"query": "BANANA"})
                seen["search"] = text_of(r)
    print(json.dumps(seen))


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:6]))
