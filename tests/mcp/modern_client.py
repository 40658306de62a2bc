"""Drives sandkeep's MCP server with the official Python SDK's high-level
`Client`, which negotiates the 2026-07-28 protocol (server/discover), where
`resources/subscribe` is gone: a `subscriptions/listen` stream carries
`notifications/resources/updated`, and a request's log level rides in its
`_meta`. Usage:

    modern_client.py stdio SANDKEEP DATA AGENT
    modern_client.py http URL             (a server without tokens)

Prints one JSON object with what it saw; tests/runtime/mcp_resources.rs
asserts on it.
"""
import asyncio
import json
import os
import sys

from mcp import Client, StdioServerParameters


async def drive(server):
    seen = {}
    logs = []

    async def on_log(params):
        logs.append({"level": params.level, "logger": params.logger, "data": params.data})

    async with Client(server, logging_callback=on_log, log_level="info") as client:
        seen["protocol"] = client.session.protocol_version
        await client.call_tool("bash", {"command": "echo one > watched.txt"})
        uri = "file:///workspace/watched.txt"
        async with client.listen(resource_subscriptions=[uri]) as sub:
            await client.call_tool("bash", {"command": "echo other > other.txt"})
            await client.call_tool("bash", {"command": "echo two > watched.txt"})
            event = await asyncio.wait_for(sub.__anext__(), 10)
            seen["event"] = {"type": type(event).__name__, "uri": getattr(event, "uri", None)}
        read = await client.read_resource(uri)
        seen["text"] = getattr(read.contents[0], "text", None)
        for _ in range(100):
            if any("kept generation" in str(l["data"]) for l in logs):
                break
            await asyncio.sleep(0.05)
        seen["logs"] = [l["data"] for l in logs if l["logger"] == "workspace-sync"]
    print(json.dumps(seen))


async def main(argv):
    if argv[0] == "http":
        await drive(argv[1])
        return
    sandkeep, data, agent = argv[1:4]
    await drive(
        StdioServerParameters(
            command=sandkeep,
            args=["-q", "--data", data, "mcp", "--agent", agent, "--backend", "local"],
            env={k: v for k, v in os.environ.items() if k.startswith("SANDKEEP_")},
        )
    )


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
