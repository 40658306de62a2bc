/**
 * Aborts (a run, a stream midway, a retry's wait) and 429 retries: the
 * server's own session limit (`--max-sessions-per-token 1`, whose 429
 * carries `Retry-After`), and a small local stub for what the server never
 * sends (an HTTP-date `Retry-After`, a body that is not JSON).
 */

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

import { Client, SandkeepError } from "../src/index.js";
import { TOKENS, startServer, type RunningServer } from "./server.js";

let server: RunningServer;

before(async () => {
  // One session per token; --idle 1s makes the 429's Retry-After 1 second.
  server = await startServer(["--max-sessions-per-token", "1", "--idle", "1s"]);
});

after(async () => {
  await server.stop();
});

/** Resolves to what `promise` rejected with (fails if it resolved). */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (e) {
    return e;
  }
  assert.fail("expected a rejection");
}

describe("abort", () => {
  test("an aborted run rejects with the signal's AbortError, and the session serves on", async () => {
    const client = new Client(server.base, { token: TOKENS.admin });
    await using session = await client.session("aborts");
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 200);
    const e = await rejection(session.run("sleep 5", { signal: controller.signal }));
    assert.ok(e instanceof Error && e.name === "AbortError", String(e));
    assert.ok(Date.now() - started < 4000, "the abort did not wait for the run");
    // AbortSignal.timeout gives a TimeoutError the same way.
    const t = await rejection(session.run("sleep 5", { signal: AbortSignal.timeout(150) }));
    assert.ok(t instanceof Error && t.name === "TimeoutError", String(t));
    assert.equal((await session.run("echo still")).stdout, "still\n");
  });

  test("a signal already aborted sends nothing", async () => {
    const client = new Client(server.base, { token: TOKENS.admin });
    const before = (await client.health()).sessions;
    const e = await rejection(client.session("aborts", { signal: AbortSignal.abort() }));
    assert.ok(e instanceof Error && e.name === "AbortError", String(e));
    assert.equal((await client.health()).sessions, before);
  });

  test("aborting a stream midway rejects the loop after the chunks already seen", async () => {
    const client = new Client(server.base, { token: TOKENS.admin });
    await using session = await client.session("aborts");
    const controller = new AbortController();
    const seen: string[] = [];
    const e = await rejection(
      (async () => {
        for await (const event of session.stream("for i in 1 2 3 4 5 6 7 8 9; do echo $i; sleep 0.3; done", {
          signal: controller.signal,
        })) {
          if (event.kind === "stdout") {
            seen.push(event.data);
            if (seen.length === 2) controller.abort();
          }
        }
      })(),
    );
    assert.ok(e instanceof Error && e.name === "AbortError", String(e));
    assert.deepEqual(seen, ["1\n", "2\n"]);
  });

  test("every other call takes a signal", async () => {
    const client = new Client(server.base, { token: TOKENS.admin });
    await using session = await client.session("aborts");
    const signal = AbortSignal.abort();
    const calls: Array<() => Promise<unknown>> = [
      () => client.health({ signal }),
      () => client.openapi({ signal }),
      () => client.mindlog("aborts", { signal }),
      () => client.mindlogAppend("aborts", "x", { signal }),
      () => client.generations("aborts", { signal }),
      () => client.generation("aborts", "HEAD", { signal }),
      () => client.generationFile("aborts", "HEAD", "f", { signal }),
      () => client.checkout("aborts", "HEAD", { signal }),
      () => client.diff("aborts", { signal }),
      () => client.verify("aborts", { signal }),
      () => session.runStreamed("true", { signal }),
      () => session.readFile("f", { signal }),
      () => session.readText("f", { signal }),
      () => session.writeFile("f", "x", { signal }),
      () => session.removeFile("f", { signal }),
      () => session.park({ signal }),
      () => session.complete({ signal }),
    ];
    for (const call of calls) {
      const e = await rejection(call());
      assert.ok(e instanceof Error && e.name === "AbortError", `${call.toString()}: ${String(e)}`);
    }
    // None of them reached the server: the session is still open and has nothing kept.
    assert.equal((await session.run("echo open")).stdout, "open\n");
  });
});

describe("429", () => {
  test("the session limit's 429 is retried after Retry-After until a slot frees", async () => {
    const client = new Client(server.base, { token: TOKENS.alice });
    const first = await client.session("alice");
    // Without retries the 429 comes back typed, with Retry-After.
    const refused = await rejection(new Client(server.base, { token: TOKENS.alice, retries: 0 }).session("alice"));
    assert.ok(refused instanceof SandkeepError);
    assert.equal(refused.status, 429);
    assert.equal(refused.retryAfter, 1);
    assert.match(refused.message, /too many sessions for this token \(limit 1\)/);
    // With retries: the slot frees 300 ms in, the retry after 1 s gets it.
    const started = Date.now();
    setTimeout(() => void first.complete(), 300);
    const second = await client.session("alice");
    const waited = Date.now() - started;
    assert.ok(waited >= 950, `retried after ${waited} ms, before Retry-After`);
    assert.equal((await second.run("echo got it")).stdout, "got it\n");
    await second.complete();
  });

  test("retries give up after `retries` and throw the last 429", async () => {
    const client = new Client(server.base, { token: TOKENS.bob, retries: 1, maxRetryDelayMs: 50 });
    const held = await client.session("bob");
    try {
      const started = Date.now();
      const e = await rejection(client.session("bob"));
      assert.ok(e instanceof SandkeepError && e.status === 429, String(e));
      // maxRetryDelayMs capped the one wait.
      assert.ok(Date.now() - started < 900);
    } finally {
      await held.complete();
    }
  });

  test("an abort during the wait for a retry rejects at once", async () => {
    const client = new Client(server.base, { token: TOKENS.bob });
    const held = await client.session("bob");
    try {
      const started = Date.now();
      const e = await rejection(client.session("bob", { signal: AbortSignal.timeout(200) }));
      assert.ok(e instanceof Error && e.name === "TimeoutError", String(e));
      assert.ok(Date.now() - started < 900);
    } finally {
      await held.complete();
    }
  });
});

describe("stub", () => {
  let stub: Server;
  let base: string;
  const hits: string[] = [];

  before(async () => {
    let n = 0;
    stub = createServer((req, res) => {
      hits.push(`${req.method} ${req.url}`);
      n++;
      if (req.url === "/v1/health" && n === 1) {
        // An HTTP date one second ahead (rounded down to the second by the format).
        res.writeHead(429, { "Retry-After": new Date(Date.now() + 1500).toUTCString(), "Content-Type": "text/plain" });
        res.end("slow down");
        return;
      }
      if (req.url === "/v1/health") {
        res.writeHead(200, { "Content-Type": "application/json" });
        res.end(JSON.stringify({ status: "ok", version: "0", backend: "stub", sessions: 0 }));
        return;
      }
      res.writeHead(502, { "Content-Type": "text/html" });
      res.end("<h1>bad gateway</h1>");
    });
    await new Promise<void>((r) => stub.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(stub.address() as AddressInfo).port}`;
  });

  after(() => new Promise<void>((r) => stub.close(() => r())));

  test("an HTTP-date Retry-After is honoured", async () => {
    const started = Date.now();
    const health = await new Client(base).health();
    assert.equal(health.backend, "stub");
    assert.deepEqual(hits.slice(0, 2), ["GET /v1/health", "GET /v1/health"]);
    assert.ok(Date.now() - started >= 400, "retried before the date");
  });

  test("an error body that is not JSON becomes the message as it is", async () => {
    const e = await rejection(new Client(base).verify("x"));
    assert.ok(e instanceof SandkeepError);
    assert.equal(e.status, 502);
    assert.equal(e.message, "<h1>bad gateway</h1>");
  });
});
