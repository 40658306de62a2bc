// A session of agent "alice": a run, a streamed run, a file, then complete.
// Type-checked against the packed package by test/docs.test.ts (no Node
// types: only what every fetch platform has).
import { Client, SandkeepError, bashTool, type RunEvent } from "@sandkeep/client";

const client = new Client("http://127.0.0.1:8080", { token: "tok-alice-change-me" });

async function main(): Promise<void> {
  await using session = await client.session("alice", { signal: AbortSignal.timeout(10_000) });
  const result = await session.run("ls -la", { timeoutMs: 5_000 });
  if (result.exit_code !== 0) console.error(result.stderr);
  const events: RunEvent[] = [];
  for await (const event of session.stream("echo streamed")) events.push(event);
  const exit = events.find((e) => e.kind === "exit");
  if (exit?.kind === "exit") console.log(exit.exit_code, exit.timed_out);
  await session.writeFile("hello.txt", "hello\n");
  const bytes: Uint8Array = await session.readFile("hello.txt");
  console.log(bytes.length);
  const tool = bashTool(session);
  const out = await tool.execute({ command: "cat hello.txt" });
  console.log(out.stdout);
}

main().catch((e: unknown) => {
  if (e instanceof SandkeepError) console.error(e.status, e.message, e.retryAfter);
  else throw e;
});
