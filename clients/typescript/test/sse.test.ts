/**
 * The event-stream reader on bodies cut at awkward places: a CRLF split
 * between chunks, a multi-byte character split between chunks, multi-line
 * data, comments, CR-only line ends, a last event without its blank line.
 */

import { test } from "node:test";
import assert from "node:assert/strict";

import { readEvents, type RawEvent } from "../src/sse.js";

function body(chunks: Array<string | Uint8Array>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const c of chunks) controller.enqueue(typeof c === "string" ? encoder.encode(c) : c);
      controller.close();
    },
  });
}

async function all(chunks: Array<string | Uint8Array>): Promise<RawEvent[]> {
  const out: RawEvent[] = [];
  for await (const e of readEvents(body(chunks))) out.push(e);
  return out;
}

test("fields, comments and blank lines", async () => {
  assert.deepEqual(await all([": keep-alive\n\nevent: stdout\ndata: {\"data\":\"a\"}\n\ndata: plain\n\n"]), [
    { event: "stdout", data: '{"data":"a"}' },
    { event: "message", data: "plain" },
  ]);
});

test("a CRLF split between two chunks is one line end", async () => {
  assert.deepEqual(await all(["event: exit\r", "\ndata: 1\r\n\r", "\n"]), [{ event: "exit", data: "1" }]);
});

test("CR alone ends lines too", async () => {
  assert.deepEqual(await all(["event: a\rdata: x\r\r"]), [{ event: "a", data: "x" }]);
});

test("a character split between chunks is decoded whole", async () => {
  const bytes = new TextEncoder().encode("data: ünï ✓\n\n");
  const chunks = Array.from(bytes, (b) => new Uint8Array([b]));
  assert.deepEqual(await all(chunks), [{ event: "message", data: "ünï ✓" }]);
});

test("multi-line data joins with newlines; no space after the colon is fine", async () => {
  assert.deepEqual(await all(["data:one\ndata: two\ndata\n\n"]), [{ event: "message", data: "one\ntwo\n" }]);
});

test("an event cut off by the end of the body (no blank line) is not dispatched", async () => {
  // As the standard says: only a blank line dispatches.
  assert.deepEqual(await all(["event: stdout\ndata: partial"]), []);
});

test("leaving the loop early cancels the body", async () => {
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      controller.enqueue(new TextEncoder().encode("data: x\n\n"));
    },
    cancel() {
      cancelled = true;
    },
  });
  for await (const e of readEvents(stream)) {
    assert.equal(e.data, "x");
    break;
  }
  assert.equal(cancelled, true);
});
