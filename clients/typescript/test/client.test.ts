/**
 * Every call of the client against a real server: health, the OpenAPI
 * document, sessions (runs, streamed runs, files, park and resume,
 * complete, `await using`), the mindlog, generations, diff, checkout,
 * verify, and the server's errors as typed SandkeepErrors.
 */

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";

import { Client, SandkeepError, type RunEvent } from "../src/index.js";
import { TOKENS, startServer, word, type RunningServer } from "./server.js";

let server: RunningServer;
let client: Client;

before(async () => {
  server = await startServer();
  client = new Client(server.base, { token: TOKENS.alice });
});

after(async () => {
  await server.stop();
});

/** Asserts that `promise` rejects with a SandkeepError of `status`; returns it. */
async function rejectsWith(promise: Promise<unknown>, status: number): Promise<SandkeepError> {
  try {
    await promise;
  } catch (e) {
    assert.ok(e instanceof SandkeepError, `not a SandkeepError: ${String(e)}`);
    assert.equal(e.status, status, e.message);
    return e;
  }
  assert.fail(`expected a ${status} error`);
}

describe("server", () => {
  test("health needs no token and counts sessions", async () => {
    const health = await new Client(server.base).health();
    assert.equal(health.status, "ok");
    assert.equal(health.backend, "local");
    assert.match(health.version, /^\d+\.\d+\.\d+/);
    const before = health.sessions;
    const session = await client.session("alice");
    assert.equal((await client.health()).sessions, before + 1);
    await session.complete();
    assert.equal((await client.health()).sessions, before);
  });

  test("the OpenAPI document lists the run operation", async () => {
    const doc = await client.openapi();
    assert.equal(doc.openapi, "3.0.3");
    assert.equal(doc.paths["/v1/sessions/{id}/run"]?.["post"]?.operationId, "run");
  });
});

describe("session", () => {
  test("run: output, exit code, stdin, timeout", async () => {
    await using session = await client.session("alice");
    assert.deepEqual(await session.run("echo hi; echo oops >&2; exit 3"), {
      stdout: "hi\n",
      stderr: "oops\n",
      exit_code: 3,
      truncated: false,
      timed_out: false,
    });
    assert.equal((await session.run("tr a-z A-Z", { stdin: "shout\n" })).stdout, "SHOUT\n");
    const slow = await session.run("while true; do :; done", { timeoutMs: 200 });
    assert.equal(slow.timed_out, true);
    assert.equal(slow.exit_code, 124);
  });

  test("stream: chunks as they come, then exit", async () => {
    await using session = await client.session("alice");
    const events: RunEvent[] = [];
    for await (const e of session.stream("echo one; echo two >&2; echo three; exit 7")) events.push(e);
    const last = events.at(-1);
    assert.deepEqual(last, { kind: "exit", exit_code: 7, truncated: false, timed_out: false });
    const joined = (kind: "stdout" | "stderr") =>
      events.map((e) => (e.kind === kind ? e.data : "")).join("");
    assert.equal(joined("stdout"), "one\nthree\n");
    assert.equal(joined("stderr"), "two\n");
    const r = await session.runStreamed("printf 'a\\nb\\n'; exit 2");
    assert.deepEqual([r.stdout, r.exit_code], ["a\nb\n", 2]);
  });

  test("stream: the first chunk arrives before the run ends", async () => {
    await using session = await client.session("alice");
    const started = Date.now();
    const seen: Array<{ kind: string; at: number }> = [];
    for await (const e of session.stream("echo first; sleep 1; echo second")) {
      seen.push({ kind: e.kind === "stdout" ? `stdout:${e.data.trim()}` : e.kind, at: Date.now() - started });
    }
    const first = seen.find((s) => s.kind === "stdout:first");
    const exit = seen.find((s) => s.kind === "exit");
    assert.ok(first && exit, JSON.stringify(seen));
    // The sleep separates them: a client that buffered the body would see both at once.
    assert.ok(exit.at - first.at >= 500, JSON.stringify(seen));
  });

  test("stream: stdin, a timeout, and breaking out early", async () => {
    await using session = await client.session("alice");
    const r = await session.runStreamed("wc -l", { stdin: "a\nb\nc\n" });
    assert.equal(r.stdout.trim(), "3");
    const cut = await session.runStreamed("sleep 5", { timeoutMs: 200 });
    assert.deepEqual([cut.timed_out, cut.exit_code], [true, 124]);
    for await (const e of session.stream("for i in $(seq 1 50); do echo $i; sleep 0.05; done")) {
      if (e.kind === "stdout") break;
    }
    // The session still serves after a stream was left.
    assert.equal((await session.run("echo after")).stdout, "after\n");
  });

  test("files: text and bytes round trip; errors are typed", async () => {
    await using session = await client.session("alice");
    const name = `dir with space/${word()}.txt`;
    assert.deepEqual(await session.writeFile(name, "milk\n"), { path: name, bytes: 5 });
    assert.deepEqual(await session.readFile(name), new TextEncoder().encode("milk\n"));
    assert.equal(await session.readText(name), "milk\n");
    assert.equal((await session.run(`cat '${name}'`)).stdout, "milk\n");
    const all = new Uint8Array(256).map((_, i) => i);
    await session.writeFile("bin.dat", all);
    assert.deepEqual(await session.readFile("bin.dat"), all);
    await session.writeFile("/abs/ünï.txt", new TextEncoder().encode("x").buffer as ArrayBuffer);
    assert.equal(await session.readText("abs/ünï.txt"), "x");
    await session.removeFile(name);
    const missing = await rejectsWith(session.readFile(name), 404);
    assert.match(missing.message, /No such file or directory/);
    await rejectsWith(session.readFile("a/../../etc/passwd"), 400);
    // Removing what is not there is fine.
    await session.removeFile("never-was");
  });

  test("park, resume, generations, diff, checkout, verify", async () => {
    const session = await client.session("alice");
    try {
      const marker = word();
      await session.run(`echo ${marker} > kept.txt`);
      const parked = await session.park();
      assert.equal(parked.parked, true);
      assert.equal(parked.session, session.id);
      const first = parked.generation;
      assert.ok(first);
      assert.equal((await session.run("cat kept.txt")).stdout, `${marker}\n`);
      await session.run("echo changed > kept.txt; echo new > added.txt");
      const second = (await session.park()).generation;
      assert.ok(second && second !== first);
      const gens = await client.generations("alice", { limit: 5 });
      assert.equal(gens[0]?.id, second);
      assert.ok(gens.some((g) => g.id === first));
      assert.equal(gens[0]?.added, 1);
      assert.equal(gens[0]?.modified, 1);
      const shown = await client.generation("alice", first);
      assert.ok(shown.files.some((f) => f.path === "kept.txt" && f.kind === "file" && f.size === 9));
      assert.equal((await client.generation("alice")).id, second);
      assert.deepEqual(await client.generationFile("alice", first, "kept.txt"), new TextEncoder().encode(`${marker}\n`));
      const changes = await client.diff("alice", { from: first, to: second });
      assert.deepEqual(
        changes.sort((a, b) => a.path.localeCompare(b.path)),
        [
          { change: "A", path: "added.txt", size: 4 },
          { change: "M", path: "kept.txt", size: 8 },
        ],
      );
      assert.deepEqual(await client.diff("alice"), changes);
      const head = await client.checkout("alice", first);
      assert.notEqual(head.id, second);
      assert.deepEqual(head.parents, [second]);
      assert.deepEqual(await client.generationFile("alice", "HEAD", "kept.txt"), new TextEncoder().encode(`${marker}\n`));
      assert.deepEqual(await client.verify("alice"), { ok: true, damaged: [] });
      await rejectsWith(client.generation("alice", "ffffffffffffffff"), 404);
      await rejectsWith(client.generationFile("alice", "HEAD", "no-such-file"), 404);
    } finally {
      await session.complete();
    }
  });

  test("complete: by await using, by try/finally; a completed session is gone", async () => {
    let id: string;
    {
      await using s = await client.session("alice");
      id = s.id;
      await s.run("echo done > done.txt");
    }
    const gone = client.attach(id, "alice");
    const e = await rejectsWith(gone.run("true"), 403);
    assert.match(e.message, /forbidden/);
    // A stream is refused the same way, before any event.
    const events: unknown[] = [];
    const streamed = (async () => {
      for await (const ev of gone.stream("echo never")) events.push(ev);
    })();
    await rejectsWith(streamed, 403);
    assert.deepEqual(events, []);
    assert.deepEqual(await client.generationFile("alice", "HEAD", "done.txt"), new TextEncoder().encode("done\n"));
    const s = await client.session("alice");
    try {
      await s.run("echo again > again.txt");
    } finally {
      const completed = await s.complete();
      assert.equal(completed.completed, true);
      assert.ok(completed.generation);
    }
    // Disposing an already completed handle is fine.
    await s[Symbol.asyncDispose]();
  });

  test("a session is reachable by id from another client", async () => {
    await using s = await client.session("alice");
    await s.run("echo shared > shared.txt");
    const other = new Client(server.base, { token: TOKENS.alice }).attach(s.id, "alice");
    assert.equal((await other.run("cat shared.txt")).stdout, "shared\n");
  });
});

describe("mindlog", () => {
  test("append, read the newest, page back, search", async () => {
    await using session = await client.session("alice");
    const w = word();
    const entry = await client.mindlogAppend("alice", `remember ${w}`, { kind: "thought", session: session.id });
    assert.equal(entry.kind, "thought");
    assert.equal(entry.sessionId, session.id);
    await client.mindlogAppend("alice", "something else");
    const newest = await client.mindlog("alice", { limit: 2 });
    assert.deepEqual(
      newest.map((e) => e.text),
      [`remember ${w}`, "something else"],
    );
    const hits = await client.mindlog("alice", { query: w.toUpperCase() });
    assert.deepEqual(
      hits.map((e) => e.id),
      [entry.id],
    );
    const older = await client.mindlog("alice", { limit: 1, before: newest[1]!.id });
    assert.equal(older[0]?.id, entry.id);
    const bad = await rejectsWith(client.mindlogAppend("alice", "x", { kind: "shouted" as never }), 400);
    assert.match(bad.message, /unknown mindlog kind/);
    await rejectsWith(client.mindlogAppend("alice", "   "), 400);
    await rejectsWith(client.mindlog("alice", { limit: 0 }), 400);
  });
});

describe("auth", () => {
  test("no token: 401; another agent's token: 403 with the server's message", async () => {
    const noToken = await rejectsWith(new Client(server.base).session("alice"), 401);
    assert.match(noToken.message, /unauthorized/);
    await using s = await client.session("alice");
    const bob = new Client(server.base, { token: TOKENS.bob });
    const e = await rejectsWith(bob.attach(s.id, "alice").run("true"), 403);
    assert.equal(e.message, "forbidden: this token does not grant that agent or session");
    assert.equal(String(e), `SandkeepError 403: ${e.message}`);
    await rejectsWith(bob.mindlog("alice"), 403);
    await rejectsWith(bob.generations("alice"), 403);
    await rejectsWith(new Client(server.base, { token: TOKENS.admin }).session("not a name"), 400);
  });

  test("a fetch of one's own is used, called without a `this`", async () => {
    const seen: Array<{ url: string; method: string; auth: string | null; self: unknown }> = [];
    const own = function (this: unknown, input: RequestInfo | URL, init?: RequestInit) {
      const headers = new Headers(init?.headers);
      seen.push({ url: String(input), method: init?.method ?? "GET", auth: headers.get("Authorization"), self: this });
      return fetch(input, init);
    };
    const c = new Client(server.base, { token: TOKENS.alice, fetch: own as typeof fetch });
    await using s = await c.session("alice");
    await s.run("true");
    assert.deepEqual(
      seen.map((r) => [r.method, r.url.replace(server.base, ""), r.auth, r.self]),
      [
        ["POST", "/v1/agents/alice/sessions", `Bearer ${TOKENS.alice}`, undefined],
        ["POST", `/v1/sessions/${s.id}/run`, `Bearer ${TOKENS.alice}`, undefined],
      ],
    );
  });

  test("an unreachable server is a SandkeepError with status 0", async () => {
    const e = await rejectsWith(new Client("http://127.0.0.1:9").health(), 0);
    assert.match(e.message, /cannot reach http:\/\/127\.0\.0\.1:9/);
    assert.ok(e.cause !== undefined);
  });
});
