"""Drives `sandkeep serve`'s MCP Streamable HTTP endpoint with the official
MCP Python SDK. Usage: http_client.py URL TOKEN

Initializes, lists tools, calls `bash` (writing a file), reads it back with
`read_file`, and prints one JSON object with what it saw; the Rust test
(tests/server/main.rs) asserts on it. A TOKEN of "-" sends no Authorization.
"""
import asyncio
import json
import sys

from mcp import ClientSession
from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client


def text_of(result):
    return "".join(getattr(c, "text", "") for c in result.content)


async def main(url, token):
    headers = {} if token == "-" else {"Authorization": f"Bearer {token}"}
    seen = {}
    client = create_mcp_http_client(headers=headers)
    async with client:
        async with streamable_http_client(url, http_client=client) as streams:
            read, write = streams[0], streams[1]
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                seen["server"] = init.server_info.name
                tools = await session.list_tools()
                seen["tools"] = sorted(t.name for t in tools.tools)
                r = await session.call_tool("bash", {"command": "echo over-http > mcp.txt && cat mcp.txt"})
                seen["bash"] = text_of(r)
                seen["bash_error"] = bool(r.is_error)
                r = await session.call_tool("read_file", {"path": "mcp.txt"})
                seen["read"] = text_of(r)
    print(json.dumps(seen))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
