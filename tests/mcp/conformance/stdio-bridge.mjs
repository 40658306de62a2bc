// A relay that lets the conformance suite, which speaks Streamable HTTP only,
// test an MCP server over stdio: each HTTP session the suite opens gets its
// own child process (the command after `--`), and every JSON-RPC message is
// passed through unchanged in both directions. The relay answers nothing
// itself, so what the suite checks is the stdio server's behaviour.
//
//   node stdio-bridge.mjs -- sandkeep mcp --backend local --agent conf
//
// It listens on a free loopback port and prints its URL as the first line of
// standard output. Built on the official SDK's two transports (installed
// with the suite), so framing and session handling are the SDK's.
import { createServer } from "node:http";
import { randomUUID } from "node:crypto";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const dashdash = process.argv.indexOf("--");
if (dashdash < 0 || dashdash + 1 >= process.argv.length) {
  console.error("usage: node stdio-bridge.mjs -- COMMAND [ARGS...]");
  process.exit(2);
}
const [command, ...args] = process.argv.slice(dashdash + 1);

/** Open HTTP sessions by their id. */
const sessions = new Map();

/** A new HTTP session wired to a new child process. */
async function openSession() {
  const child = new StdioClientTransport({ command, args, env: process.env, stderr: "inherit" });
  // A progress notification travels on the SSE stream of the request that
  // asked for it: remember which request each progress token belongs to.
  const requestOfToken = new Map();
  const http = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => sessions.set(id, http),
  });
  http.onmessage = (message) => {
    const token = message.params?._meta?.progressToken;
    if (token !== undefined && message.id !== undefined) {
      requestOfToken.set(token, message.id);
    }
    child.send(message).catch((e) => console.error(`bridge: to the child: ${e}`));
  };
  child.onmessage = (message) => {
    const token = message.method === "notifications/progress" ? message.params?.progressToken : undefined;
    const relatedRequestId = token === undefined ? undefined : requestOfToken.get(token);
    http
      .send(message, relatedRequestId === undefined ? undefined : { relatedRequestId })
      .catch((e) => console.error(`bridge: to the client: ${e}`));
  };
  http.onclose = () => {
    if (http.sessionId) sessions.delete(http.sessionId);
    child.close();
  };
  child.onclose = () => http.close();
  await child.start();
  await http.start();
  return http;
}

const server = createServer(async (req, res) => {
  try {
    let body;
    if (req.method === "POST") {
      const chunks = [];
      for await (const chunk of req) chunks.push(chunk);
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    }
    const id = req.headers["mcp-session-id"];
    const http = id ? sessions.get(id) : body?.method === "initialize" ? await openSession() : undefined;
    if (!http) {
      res.writeHead(id ? 404 : 400, { "content-type": "application/json" });
      res.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32000, message: "no such session" } }));
      return;
    }
    await http.handleRequest(req, res, body);
  } catch (e) {
    if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
    res.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32603, message: String(e) } }));
  }
});

server.listen(0, "127.0.0.1", () => {
  console.log(`http://127.0.0.1:${server.address().port}/mcp`);
});
