/**
 * The bash tool in an agent loop: the AI SDK's `generateText` with a
 * scripted model (no network) that asks for `bash` twice; the calls run in
 * a real session and their results come back to the model, which answers
 * with what it read. Also the tool on its own: schema, validation,
 * cutting long output, refused input.
 */

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";

import { generateText, stepCountIs, tool } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import type { LanguageModelV3CallOptions, LanguageModelV3GenerateResult } from "@ai-sdk/provider";

import { Client, bashTool } from "../src/index.js";
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

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

function toolCall(id: string, input: unknown): LanguageModelV3GenerateResult {
  return {
    content: [{ type: "tool-call", toolCallId: id, toolName: "bash", input: JSON.stringify(input) }],
    finishReason: { unified: "tool-calls", raw: "tool_use" },
    usage,
    warnings: [],
  };
}

/** The tool results the model was shown in its prompt, by call id. */
function toolResults(options: LanguageModelV3CallOptions): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const message of options.prompt) {
    if (message.role !== "tool") continue;
    for (const part of message.content) {
      if (part.type === "tool-result") out.set(part.toolCallId, part.output);
    }
  }
  return out;
}

describe("AI SDK", () => {
  test("a scripted model's bash calls run in the session and their results come back", async () => {
    await using session = await client.session("alice");
    const marker = word();
    const seenTools: unknown[] = [];
    const model = new MockLanguageModelV3({
      doGenerate: async (options) => {
        seenTools.push(options.tools);
        const results = toolResults(options);
        if (results.size === 0) {
          return toolCall("call-1", { command: `echo ${marker} > note.txt; wc -c < note.txt` });
        }
        if (results.size === 1) {
          return toolCall("call-2", { command: "cat note.txt; echo oops >&2; exit 4" });
        }
        const second = results.get("call-2") as { type: string; value: { stdout: string; stderr: string; exit_code: number } };
        return {
          content: [{ type: "text", text: `the note says ${second.value.stdout.trim()} (exit ${second.value.exit_code})` }],
          finishReason: { unified: "stop", raw: "end_turn" },
          usage,
          warnings: [],
        };
      },
    });
    const result = await generateText({
      model,
      prompt: "Write a note and read it back.",
      tools: { bash: tool(bashTool(session)) },
      stopWhen: stepCountIs(5),
    });
    assert.equal(result.text, `the note says ${marker} (exit 4)`);
    assert.equal(result.steps.length, 3);
    const first = result.steps[0]!.toolResults[0]!;
    assert.equal(first.toolName, "bash");
    assert.deepEqual(first.output, {
      stdout: `${marker.length + 1}\n`,
      stderr: "",
      exit_code: 0,
      truncated: false,
      timed_out: false,
    });
    const second = result.steps[1]!.toolResults[0]!;
    assert.deepEqual(second.output, { stdout: `${marker}\n`, stderr: "oops\n", exit_code: 4, truncated: false, timed_out: false });
    // The file the model's first call wrote is in the session's workspace.
    assert.equal(await session.readText("note.txt"), `${marker}\n`);
    // The model was offered the tool with its JSON Schema and description.
    const offered = (seenTools[0] as Array<{ name: string; description: string; inputSchema: { required: string[] } }>)[0]!;
    assert.equal(offered.name, "bash");
    assert.match(offered.description, /persistent sandbox/);
    assert.deepEqual(offered.inputSchema.required, ["command"]);
  });

  test("input the schema refuses never reaches the session", async () => {
    await using session = await client.session("alice");
    let calls = 0;
    const model = new MockLanguageModelV3({
      doGenerate: async (options) => {
        calls++;
        if (calls === 1) return toolCall("bad", { cmd: "touch should-not-exist" });
        const result = toolResults(options).get("bad") as { type: string; value: string };
        return {
          content: [{ type: "text", text: `${result.type}: ${String(result.value)}` }],
          finishReason: { unified: "stop", raw: "end_turn" },
          usage,
          warnings: [],
        };
      },
    });
    const result = await generateText({
      model,
      prompt: "x",
      tools: { bash: tool(bashTool(session)) },
      stopWhen: stepCountIs(3),
    });
    assert.match(result.text, /error/i);
    assert.match(result.text, /bash tool input: unknown field \\"cmd\\"/);
    assert.equal((await session.run("test -e should-not-exist; echo $?")).stdout, "1\n");
  });
});

describe("the tool alone", () => {
  test("name, description, schema; execute runs in the session", async () => {
    await using session = await client.session("alice");
    const t = bashTool(session, { timeoutMs: 300, maxOutputChars: 40 });
    assert.equal(t.name, "bash");
    assert.deepEqual(t.parameters["required"], ["command"]);
    assert.deepEqual(t.inputSchema["~standard"].jsonSchema.input({ target: "draft-07" }), t.parameters);
    assert.throws(() => t.inputSchema["~standard"].jsonSchema.input({ target: "draft-04" }));
    assert.deepEqual(t.inputSchema["~standard"].validate({ command: "ls", timeout_ms: 5 }), {
      value: { command: "ls", timeout_ms: 5 },
    });
    assert.ok(t.inputSchema["~standard"].validate({ command: "ls", timeout_ms: 0 }).issues);
    assert.ok(t.inputSchema["~standard"].validate("ls").issues);
    // The default time limit applies; a call's own wins.
    assert.equal((await t.execute({ command: "sleep 3" })).timed_out, true);
    assert.equal((await t.execute({ command: "sleep 0.5; echo slept", timeout_ms: 5000 })).stdout, "slept\n");
    // Long output is cut to its head and tail, and flagged.
    const long = await t.execute({ command: "seq 1 1000" });
    assert.equal(long.truncated, true);
    assert.ok(long.stdout.startsWith("1\n2\n3\n"), long.stdout);
    assert.ok(long.stdout.endsWith("999\n1000\n"), long.stdout);
    assert.match(long.stdout, /\[\.\.\. \d+ characters cut \.\.\.\]/);
    await assert.rejects(t.execute({ command: 1 } as never), /command must be a string/);
    await assert.rejects(t.execute({ command: "true", timeout_ms: 4_000_000 }), /timeout_ms must be an integer/);
    // A refusal by the server is a SandkeepError (the AI SDK shows it to the model).
    const gone = bashTool(client.attach("no-such-session", "alice"));
    await assert.rejects(gone.execute({ command: "true" }), { name: "SandkeepError", status: 403 });
    // The AI SDK's abort signal cancels a call.
    await assert.rejects(t.execute({ command: "sleep 5", timeout_ms: 10_000 }, { abortSignal: AbortSignal.timeout(100) }), {
      name: "TimeoutError",
    });
  });
});
