"""Drives sandkeep's MCP resources, progress and logging with the official MCP
Python SDK, over stdio or Streamable HTTP. Usage:

    resources_client.py stdio SANDKEEP DATA AGENT
    resources_client.py http URL TOKEN        (TOKEN "-": no Authorization)

Initializes (the 2025 handshake: resources/subscribe is that era's
mechanism), turns logging on, has `bash` write files, pages through
resources/list, reads text and binary resources, a kept generation's file,
the templates; subscribes to one file and sees notifications/resources/updated
when a call changes it (and none once unsubscribed or for other files);
runs a `bash` call with a progress callback. Prints one JSON object with
what it saw; the Rust test (tests/runtime/mcp_resources.rs) asserts on it.
"""
import asyncio
import base64
import json
import os
import sys
import warnings

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client
from mcp.types import PaginatedRequestParams

# resources/subscribe is the 2025 mechanism the SDK marks as deprecated.
warnings.simplefilter("ignore")


def text_of(result):
    return "".join(getattr(c, "text", "") for c in result.content)


async def settle(predicate, seconds=5.0):
    """Waits until predicate() holds (notifications arrive asynchronously)."""
    for _ in range(int(seconds / 0.05)):
        if predicate():
            return True
        await asyncio.sleep(0.05)
    return predicate()


async def drive(read, write):
    seen = {}
    updates = []
    logs = []

    async def on_message(message):
        root = getattr(message, "root", message)
        method = getattr(root, "method", None)
        if method == "notifications/resources/updated":
            updates.append(root.params.uri)

    async def on_log(params):
        logs.append({"level": params.level, "logger": params.logger, "data": params.data})

    async with ClientSession(read, write, message_handler=on_message, logging_callback=on_log) as session:
        init = await session.initialize()
        caps = init.capabilities
        seen["caps"] = {
            "resources": caps.resources is not None,
            "subscribe": bool(caps.resources and caps.resources.subscribe),
            "logging": caps.logging is not None,
        }
        await session.set_logging_level("info")

        empty = await session.list_resources()
        seen["before_any_call"] = len(empty.resources)

        script = (
            "echo hello > notes.txt; "
            "printf '\\211PNG\\r\\n\\032\\n\\000\\001\\377' > img.png; "
            "mkdir -p 'many files'; for i in $(seq 1 150); do echo $i > \"many files/f$i.txt\"; done"
        )
        r = await session.call_tool("bash", {"command": script})
        seen["write_error"] = bool(r.is_error)

        uris, pages, cursor, by_uri = [], 0, None, {}
        while True:
            page = await session.list_resources(params=PaginatedRequestParams(cursor=cursor) if cursor else None)
            pages += 1
            uris.extend(res.uri for res in page.resources)
            by_uri.update((res.uri, res) for res in page.resources)
            cursor = page.next_cursor
            if not cursor or pages > 10:
                break
        note = by_uri.get("file:///workspace/notes.txt")
        seen["listed_note"] = note and {"name": note.name, "mime": note.mime_type, "size": note.size}
        seen["pages"] = pages
        seen["listed"] = len(uris)
        seen["distinct"] = len(set(uris))
        seen["has_spaced"] = "file:///workspace/many%20files/f150.txt" in uris

        text = await session.read_resource("file:///workspace/notes.txt")
        c = text.contents[0]
        seen["text"] = {"uri": c.uri, "mime": c.mime_type, "text": getattr(c, "text", None)}
        binary = await session.read_resource("file:///workspace/img.png")
        c = binary.contents[0]
        blob = getattr(c, "blob", None)
        seen["binary"] = {"mime": c.mime_type, "bytes": list(base64.b64decode(blob)) if blob else None}
        spaced = await session.read_resource("file:///workspace/many%20files/f7.txt")
        seen["spaced_text"] = getattr(spaced.contents[0], "text", None)

        templates = await session.list_resource_templates()
        seen["templates"] = sorted(t.uri_template for t in templates.resource_templates)

        try:
            await session.read_resource("file:///workspace/missing.txt")
            seen["missing"] = "no error"
        except Exception as e:  # an MCPError
            seen["missing"] = {"code": getattr(getattr(e, "error", None), "code", None), "text": str(e)}
        try:
            await session.read_resource("file:///workspace/../etc/passwd")
            seen["escape"] = "no error"
        except Exception as e:
            seen["escape"] = str(e)

        # A network denial is a log line too (no host is allowed here).
        await session.call_tool("bash", {"command": "curl -sS http://example.com/ || true"})

        # A file past the read limit is refused with a clear error, not read whole.
        await session.call_tool("bash", {"command": "yes abcdefgh | head -c 9000000 > big.txt"})
        try:
            await session.read_resource("file:///workspace/big.txt")
            seen["big"] = "no error"
        except Exception as e:
            seen["big"] = str(e)
        await session.call_tool("bash", {"command": "rm big.txt"})

        # Subscribe to notes.txt: a call that changes it is told, one that
        # changes another file is not.
        await session.subscribe_resource("file:///workspace/notes.txt")
        await session.call_tool("bash", {"command": "echo other > other.txt"})
        await asyncio.sleep(0.5)
        seen["updates_after_other"] = list(updates)
        await session.call_tool("bash", {"command": "echo changed > notes.txt"})
        await settle(lambda: updates)
        seen["updates_after_change"] = list(updates)
        after = await session.read_resource("file:///workspace/notes.txt")
        seen["text_after_change"] = getattr(after.contents[0], "text", None)
        await session.unsubscribe_resource("file:///workspace/notes.txt")
        await session.call_tool("bash", {"command": "echo again > notes.txt"})
        await asyncio.sleep(0.5)
        seen["updates_after_unsubscribe"] = list(updates)

        # The first kept generation still holds the first notes.txt.
        history = await session.call_tool("workspace_history", {"limit": 50})
        ids = [json.loads(line)["id"] for line in text_of(history).splitlines()]
        old = await session.read_resource(f"sandkeep://generations/{ids[-1]}/notes.txt")
        seen["first_generation_note"] = getattr(old.contents[0], "text", None)
        prev = await session.read_resource("sandkeep://generations/HEAD~1/notes.txt")
        seen["head_1_note"] = getattr(prev.contents[0], "text", None)

        # Progress: each output chunk as it comes, progress increasing.
        progress = []

        async def on_progress(value, total, message):
            progress.append({"progress": value, "message": message})

        r = await session.call_tool(
            "bash",
            {"command": "for i in 1 2 3; do echo tick$i; sleep 0.2; done"},
            progress_callback=on_progress,
        )
        seen["progress_result"] = text_of(r)
        seen["progress"] = progress

        await settle(lambda: any("kept generation" in str(l["data"]) for l in logs))
        seen["logs"] = logs
    print(json.dumps(seen))


async def main(argv):
    if argv[0] == "stdio":
        sandkeep, data, agent = argv[1:4]
        params = StdioServerParameters(
            command=sandkeep,
            args=["-q", "--data", data, "mcp", "--agent", agent, "--backend", "local"],
            env={k: v for k, v in os.environ.items() if k.startswith("SANDKEEP_")},
        )
        async with stdio_client(params) as streams:
            await drive(streams[0], streams[1])
    else:
        url, token = argv[1:3]
        headers = {} if token == "-" else {"Authorization": f"Bearer {token}"}
        client = create_mcp_http_client(headers=headers)
        async with client:
            async with streamable_http_client(url, http_client=client) as streams:
                await drive(streams[0], streams[1])


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
