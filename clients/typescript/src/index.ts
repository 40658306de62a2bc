/**
 * `@sandkeep/client`: the TypeScript client of `sandkeep serve` on the
 * platform's `fetch` alone (Node 18+, Deno, Bun, browsers).
 *
 * ```ts
 * import { Client } from "@sandkeep/client";
 * const client = new Client("http://127.0.0.1:8080", { token: "tok-alice" });
 * await using session = await client.session("alice");
 * for await (const event of session.stream("echo hi")) console.log(event);
 * ```
 *
 * @module
 */

export { Client, Session } from "./client.js";
export type { AppendOptions, CallOptions, ClientOptions, MindlogOptions, RunOptions } from "./client.js";
export { SandkeepError } from "./errors.js";
export { bashTool } from "./bash-tool.js";
export type { BashInput, BashOutput, BashTool, BashToolOptions, JsonSchema, StandardResult, ToolInputSchema } from "./bash-tool.js";
export type * from "./types.js";
