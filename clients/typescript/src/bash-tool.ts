/**
 * A ready `bash` tool for agent loops: a name, a description written for a
 * model, the input's JSON Schema and an `execute` that runs the command in
 * a sandkeep session.
 *
 * The object plugs into the AI SDK's `tool()` as it is, with no dependency
 * on the AI SDK: its `inputSchema` is a Standard Schema (standardschema.dev:
 * a `~standard` property with `validate` and, per Standard JSON Schema,
 * `jsonSchema.input()`), which the AI SDK (6+) and other agent frameworks
 * read without zod. `parameters` is the plain JSON Schema for anything else
 * (OpenAI function tools, Anthropic tools, MCP).
 *
 * @module
 */

import type { Session } from "./client.js";

/** What the model sends. */
export interface BashInput {
  /** The script, as for `bash -c`, run in /workspace. */
  command: string;
  /** The run's time limit in milliseconds. */
  timeout_ms?: number;
}

/** What the model reads back. */
export interface BashOutput {
  stdout: string;
  stderr: string;
  exit_code: number;
  /** The output was cut (by the server's limit, or to `maxOutputChars`). */
  truncated: boolean;
  timed_out: boolean;
}

/** A JSON Schema object (draft 7), as tool definitions carry it. */
export type JsonSchema = { [key: string]: unknown };

/** What a Standard Schema's `validate` answers. */
export type StandardResult<T> =
  | { readonly value: T; readonly issues?: undefined }
  | { readonly issues: ReadonlyArray<{ readonly message: string }> };

/**
 * A schema in the Standard Schema v1 shape with Standard JSON Schema's
 * converter (both at standardschema.dev), which the AI SDK's `tool({
 * inputSchema })` accepts.
 */
export interface ToolInputSchema<T> {
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => StandardResult<T>;
    readonly jsonSchema: {
      readonly input: (options: { readonly target: string }) => Record<string, unknown>;
      readonly output: (options: { readonly target: string }) => Record<string, unknown>;
    };
    /** For type inference only; never set. */
    readonly types?: { readonly input: T; readonly output: T } | undefined;
  };
}

/** How the tool behaves. */
export interface BashToolOptions {
  /** The tool's name (default `bash`). */
  name?: string;
  /** Replaces the description the model reads. */
  description?: string;
  /** The time limit of a call that gives none, in milliseconds. */
  timeoutMs?: number;
  /** The most of stdout and of stderr returned to the model (default 30 000 characters each). */
  maxOutputChars?: number;
}

/** A tool definition: pass it to the AI SDK's `tool()`, or read its parts. */
export interface BashTool {
  readonly name: string;
  readonly description: string;
  /** The input's JSON Schema (plain object). */
  readonly parameters: JsonSchema;
  /** The same schema as a Standard Schema, for the AI SDK's `tool()`. */
  readonly inputSchema: ToolInputSchema<BashInput>;
  /** Runs one call in the session; `abortSignal` (the AI SDK passes one) cancels it. */
  execute(input: BashInput, options?: { abortSignal?: AbortSignal }): Promise<BashOutput>;
}

const DESCRIPTION =
  "Run a bash command in a persistent sandbox (starts in /workspace). Files written under " +
  "/workspace persist across calls; within the session the shell is kept between calls " +
  "(working directory, variables, functions, aliases, set/shopt options, umask; not traps " +
  "or background jobs). Returns stdout, stderr and the exit code; " +
  "very long output is cut and flagged as truncated.";

const PARAMETERS: JsonSchema = {
  type: "object",
  properties: {
    command: { type: "string", description: "The script to run, as for `bash -c`." },
    timeout_ms: {
      type: "integer",
      minimum: 1,
      maximum: 3_600_000,
      description: "Wall-clock limit in milliseconds.",
    },
  },
  required: ["command"],
  additionalProperties: false,
};

/** Checks a model's arguments against {@link PARAMETERS}. */
function validateInput(value: unknown): { success: true; value: BashInput } | { success: false; error: Error } {
  const fail = (message: string) => ({ success: false as const, error: new TypeError(`bash tool input: ${message}`) });
  if (value === null || typeof value !== "object" || Array.isArray(value)) return fail("expected an object");
  const input = value as Record<string, unknown>;
  for (const key of Object.keys(input)) {
    if (key !== "command" && key !== "timeout_ms") return fail(`unknown field ${JSON.stringify(key)}`);
  }
  if (typeof input["command"] !== "string") return fail("command must be a string");
  const timeout = input["timeout_ms"];
  if (timeout !== undefined && timeout !== null) {
    if (typeof timeout !== "number" || !Number.isInteger(timeout) || timeout < 1 || timeout > 3_600_000) {
      return fail("timeout_ms must be an integer from 1 to 3600000");
    }
    return { success: true, value: { command: input["command"], timeout_ms: timeout } };
  }
  return { success: true, value: { command: input["command"] } };
}

/** `text` cut to `max` characters: its head and its tail, with a note between. */
function cut(text: string, max: number): { text: string; cut: boolean } {
  if (text.length <= max) return { text, cut: false };
  const head = Math.floor(max / 2);
  const tail = max - head;
  const dropped = text.length - max;
  return { text: `${text.slice(0, head)}\n[... ${dropped} characters cut ...]\n${text.slice(text.length - tail)}`, cut: true };
}

/**
 * A `bash` tool whose calls run in `session`.
 *
 * ```ts
 * import { generateText, tool, stepCountIs } from "ai";
 * const result = await generateText({
 *   model, prompt: "How many lines does notes.txt have?",
 *   tools: { bash: tool(bashTool(session)) },
 *   stopWhen: stepCountIs(5),
 * });
 * ```
 */
export function bashTool(session: Session, options: BashToolOptions = {}): BashTool {
  const max = options.maxOutputChars ?? 30_000;
  const converter = (options: { readonly target: string }): Record<string, unknown> => {
    // The schema uses nothing these drafts disagree on.
    if (!["draft-07", "draft-2020-12", "openapi-3.0"].includes(options.target)) {
      throw new Error(`the bash tool's schema has no ${options.target} form`);
    }
    return structuredClone(PARAMETERS);
  };
  const inputSchema: ToolInputSchema<BashInput> = {
    "~standard": {
      version: 1,
      vendor: "sandkeep",
      validate(value) {
        const checked = validateInput(value);
        return checked.success ? { value: checked.value } : { issues: [{ message: checked.error.message }] };
      },
      jsonSchema: { input: converter, output: converter },
    },
  };
  return {
    name: options.name ?? "bash",
    description: options.description ?? DESCRIPTION,
    parameters: structuredClone(PARAMETERS),
    inputSchema,
    async execute(input, callOptions) {
      const checked = validateInput(input);
      if (!checked.success) throw checked.error;
      const timeoutMs = checked.value.timeout_ms ?? options.timeoutMs;
      const run: { timeoutMs?: number; signal?: AbortSignal } = {};
      if (timeoutMs !== undefined) run.timeoutMs = timeoutMs;
      if (callOptions?.abortSignal) run.signal = callOptions.abortSignal;
      // A refusal (a SandkeepError) propagates: the AI SDK hands a tool's
      // error to the model as the call's result.
      const result = await session.run(checked.value.command, run);
      const stdout = cut(result.stdout, max);
      const stderr = cut(result.stderr, max);
      return {
        stdout: stdout.text,
        stderr: stderr.text,
        exit_code: result.exit_code,
        truncated: result.truncated || stdout.cut || stderr.cut,
        timed_out: result.timed_out,
      };
    },
  };
}
