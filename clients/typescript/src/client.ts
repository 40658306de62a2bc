/**
 * The client of `sandkeep serve`'s REST API over the platform's `fetch`:
 * health, sessions (runs, streamed runs, files, park, complete), the
 * mindlog and the workspace generations.
 *
 * @module
 */

import { SandkeepError, isAbort } from "./errors.js";
import { readEvents } from "./sse.js";
import type {
  Change,
  Created,
  Generation,
  GenerationWithFiles,
  Health,
  MindlogEntry,
  MindlogKind,
  OpenApiDocument,
  RunEvent,
  RunRequest,
  RunResult,
  SessionState,
  VerifyReport,
  Written,
} from "./types.js";

/** What every call takes: a signal that aborts it (waits for a retry included). */
export interface CallOptions {
  signal?: AbortSignal;
}

/** How a client talks to the server. */
export interface ClientOptions {
  /** A bearer token from the server's token file. */
  token?: string;
  /** How many times a 429 is retried, waiting what `Retry-After` says (default 3). */
  retries?: number;
  /** The longest wait for one retry, in milliseconds (default 60 000). */
  maxRetryDelayMs?: number;
  /** The `fetch` to use (default: the global one). */
  fetch?: typeof fetch;
}

/** Options of a run. */
export interface RunOptions extends CallOptions {
  /** The run's time limit in milliseconds (1 to 3 600 000; the server's default otherwise). */
  timeoutMs?: number;
  /** Text given to the command's standard input. */
  stdin?: string;
  /**
   * Let the run go on if this client goes away (by default the server
   * cancels a run whose client disconnected).
   */
  detach?: boolean;
}

/** Options of a mindlog read. */
export interface MindlogOptions extends CallOptions {
  /** How many entries (1 to 10 000, default 20). */
  limit?: number;
  /** Only entries whose text contains this (ignoring case). */
  query?: string;
  /** Only entries older than this entry id. */
  before?: string;
}

/** Options of a mindlog append. */
export interface AppendOptions extends CallOptions {
  /** Default `note`. */
  kind?: MindlogKind;
  /** The session the entry belongs to. */
  session?: string;
}

/** What a request sends. */
interface RequestSpec extends CallOptions {
  method: string;
  path: string;
  query?: Record<string, string | number | undefined>;
  json?: unknown;
  body?: Uint8Array;
  accept?: string;
}

/**
 * A path relative to /workspace (or an agent or generation name) for a URL.
 * A `..` component is refused here, with the server's words and status: a
 * URL parser resolves `..` (escaped or not) before the request leaves, so
 * the server would never see it and the request would reach another route.
 */
function quotePath(path: string): string {
  const parts = path.replace(/^\/+/, "").split("/");
  if (parts.includes("..")) {
    throw new SandkeepError(400, `${path}: give a path inside /workspace, without '..'`);
  }
  return parts.map((part) => encodeURIComponent(part)).join("/");
}

/** Milliseconds a `Retry-After` value asks for (seconds or an HTTP date). */
function retryAfterMs(value: string | null): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** Waits `ms`, or rejects with the signal's reason when it aborts first. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** The error a non-2xx response stands for. */
async function errorOf(response: Response): Promise<SandkeepError> {
  const raw = await response.text().catch(() => "");
  let message = raw || response.statusText || `HTTP ${response.status}`;
  try {
    const parsed: unknown = JSON.parse(raw);
    if (parsed !== null && typeof parsed === "object" && typeof (parsed as { error?: unknown }).error === "string") {
      message = (parsed as { error: string }).error;
    }
  } catch {
    // Not JSON: the raw text is the message.
  }
  const wait = retryAfterMs(response.headers.get("Retry-After"));
  return new SandkeepError(response.status, message, wait === undefined ? undefined : { retryAfter: wait / 1000 });
}

/**
 * The server at `baseUrl` (e.g. `http://127.0.0.1:8080`).
 *
 * ```ts
 * const client = new Client("http://127.0.0.1:8080", { token: "tok-alice" });
 * await using session = await client.session("alice");
 * console.log((await session.run("echo hi")).stdout);
 * ```
 */
export class Client {
  readonly baseUrl: string;
  readonly token: string | undefined;
  readonly retries: number;
  readonly maxRetryDelayMs: number;
  readonly #fetch: typeof fetch;

  constructor(baseUrl: string, options: ClientOptions = {}) {
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    this.token = options.token;
    this.retries = options.retries ?? 3;
    this.maxRetryDelayMs = options.maxRetryDelayMs ?? 60_000;
    const given = options.fetch;
    if (given === undefined && typeof globalThis.fetch !== "function") {
      throw new TypeError("no fetch: give ClientOptions.fetch on a platform without a global fetch");
    }
    // Called as a plain function: browsers refuse a fetch whose `this` is
    // not the global object ("Illegal invocation").
    this.#fetch = given ?? ((input, init) => globalThis.fetch(input, init));
  }

  // ---- transport ---------------------------------------------------------

  /** Sends a request, retrying 429s; resolves to a 2xx response. */
  async #send(spec: RequestSpec): Promise<Response> {
    let url = this.baseUrl + spec.path;
    if (spec.query) {
      const params = new URLSearchParams();
      for (const [k, v] of Object.entries(spec.query)) {
        if (v !== undefined) params.set(k, String(v));
      }
      const text = params.toString();
      if (text) url += `?${text}`;
    }
    const headers: Record<string, string> = { Accept: spec.accept ?? "application/json" };
    let body: BodyInit | undefined;
    if (spec.json !== undefined) {
      headers["Content-Type"] = "application/json";
      body = JSON.stringify(spec.json);
    } else if (spec.body !== undefined) {
      headers["Content-Type"] = "application/octet-stream";
      body = spec.body as Uint8Array<ArrayBuffer>;
    }
    if (this.token) headers["Authorization"] = `Bearer ${this.token}`;
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        const init: RequestInit = { method: spec.method, headers };
        if (body !== undefined) init.body = body;
        if (spec.signal) init.signal = spec.signal;
        const f = this.#fetch;
        response = await f(url, init);
      } catch (e) {
        if (isAbort(e, spec.signal)) throw e;
        const reason = e instanceof Error ? (e.cause instanceof Error ? e.cause.message : e.message) : String(e);
        throw new SandkeepError(0, `cannot reach ${this.baseUrl}: ${reason}`, { cause: e });
      }
      if (response.ok) return response;
      const error = await errorOf(response);
      if (response.status !== 429 || attempt >= this.retries) throw error;
      const wait = error.retryAfter === undefined ? 1000 : error.retryAfter * 1000;
      await sleep(Math.min(wait, this.maxRetryDelayMs), spec.signal);
    }
  }

  async #json<T>(spec: RequestSpec): Promise<T> {
    const response = await this.#send(spec);
    const text = await this.#read(() => response.text(), spec.signal);
    return (text ? JSON.parse(text) : undefined) as T;
  }

  async #bytes(spec: RequestSpec): Promise<Uint8Array> {
    const response = await this.#send({ ...spec, accept: "application/octet-stream" });
    return new Uint8Array(await this.#read(() => response.arrayBuffer(), spec.signal));
  }

  /** Reads a body; a connection cut midway is a SandkeepError with status 0. */
  async #read<T>(read: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    try {
      return await read();
    } catch (e) {
      if (isAbort(e, signal)) throw e;
      throw new SandkeepError(0, `the answer from ${this.baseUrl} was cut: ${e instanceof Error ? e.message : String(e)}`, {
        cause: e,
      });
    }
  }

  /** @internal A request for a session handle. */
  async request<T>(spec: RequestSpec): Promise<T> {
    return this.#json<T>(spec);
  }

  /** @internal */
  async requestBytes(spec: RequestSpec): Promise<Uint8Array> {
    return this.#bytes(spec);
  }

  /** @internal */
  async requestRaw(spec: RequestSpec): Promise<Response> {
    return this.#send(spec);
  }

  // ---- server --------------------------------------------------------------

  /** `{status, version, backend, sessions}`; needs no token. */
  async health(options: CallOptions = {}): Promise<Health> {
    return this.#json({ method: "GET", path: "/v1/health", ...options });
  }

  /** The server's OpenAPI 3 document. */
  async openapi(options: CallOptions = {}): Promise<OpenApiDocument> {
    return this.#json({ method: "GET", path: "/v1/openapi.json", ...options });
  }

  // ---- sessions --------------------------------------------------------------

  /**
   * Opens a session of `agent` (its workspace restored). Complete it when
   * done: `await using session = ...`, or `try { ... } finally { await
   * session.complete() }`.
   */
  async session(agent: string, options: CallOptions = {}): Promise<Session> {
    const created = await this.#json<Created>({
      method: "POST",
      path: `/v1/agents/${quotePath(agent)}/sessions`,
      ...options,
    });
    return new Session(this, created.session, created.agent);
  }

  /** A handle on a session opened earlier (e.g. by another process). */
  attach(sessionId: string, agent: string): Session {
    return new Session(this, sessionId, agent);
  }

  // ---- mindlog -----------------------------------------------------------------

  /**
   * The newest `limit` entries, oldest first; with `query`, those whose
   * text contains it (ignoring case); with `before`, only older ones.
   */
  async mindlog(agent: string, options: MindlogOptions = {}): Promise<MindlogEntry[]> {
    const found = await this.#json<{ entries: MindlogEntry[] }>({
      method: "GET",
      path: `/v1/agents/${quotePath(agent)}/mindlog`,
      query: { limit: options.limit ?? 20, query: options.query, before: options.before },
      signal: options.signal,
    });
    return found.entries;
  }

  /** Appends an entry (default kind `note`). */
  async mindlogAppend(agent: string, text: string, options: AppendOptions = {}): Promise<MindlogEntry> {
    const body: { kind: string; text: string; session?: string } = { kind: options.kind ?? "note", text };
    if (options.session !== undefined) body.session = options.session;
    return this.#json({
      method: "POST",
      path: `/v1/agents/${quotePath(agent)}/mindlog`,
      json: body,
      signal: options.signal,
    });
  }

  // ---- generations ---------------------------------------------------------------

  /** Kept generations of the agent's workspace, newest first. */
  async generations(agent: string, options: CallOptions & { limit?: number } = {}): Promise<Generation[]> {
    const found = await this.#json<{ generations: Generation[] }>({
      method: "GET",
      path: `/v1/agents/${quotePath(agent)}/generations`,
      query: { limit: options.limit ?? 20 },
      signal: options.signal,
    });
    return found.generations;
  }

  /** One generation (an id, a unique prefix, `HEAD` or `HEAD~N`) and its files. */
  async generation(agent: string, generation = "HEAD", options: CallOptions = {}): Promise<GenerationWithFiles> {
    return this.#json({
      method: "GET",
      path: `/v1/agents/${quotePath(agent)}/generations/${quotePath(generation)}`,
      ...options,
    });
  }

  /** A file's bytes as `generation` holds it. */
  async generationFile(agent: string, generation: string, path: string, options: CallOptions = {}): Promise<Uint8Array> {
    return this.#bytes({
      method: "GET",
      path: `/v1/agents/${quotePath(agent)}/generations/${quotePath(generation)}/files/${quotePath(path)}`,
      ...options,
    });
  }

  /** Makes a new head whose tree is `generation`'s (history kept); the new head. */
  async checkout(agent: string, generation: string, options: CallOptions = {}): Promise<Generation> {
    return this.#json({
      method: "POST",
      path: `/v1/agents/${quotePath(agent)}/generations/${quotePath(generation)}/checkout`,
      ...options,
    });
  }

  /** What changed between two generations (default `HEAD~1` to `HEAD`). */
  async diff(agent: string, options: CallOptions & { from?: string; to?: string } = {}): Promise<Change[]> {
    const found = await this.#json<{ changes: Change[] }>({
      method: "GET",
      path: `/v1/agents/${quotePath(agent)}/diff`,
      query: { from: options.from, to: options.to },
      signal: options.signal,
    });
    return found.changes;
  }

  /** Checks every kept generation and blob. */
  async verify(agent: string, options: CallOptions = {}): Promise<VerifyReport> {
    return this.#json({ method: "POST", path: `/v1/agents/${quotePath(agent)}/verify`, ...options });
  }
}

/** The text of `data` as UTF-8 bytes. */
function bytesOf(data: Uint8Array | ArrayBuffer | string): Uint8Array {
  if (typeof data === "string") return new TextEncoder().encode(data);
  return data instanceof Uint8Array ? data : new Uint8Array(data);
}

/**
 * One server session: runs and files in its sandbox's `/workspace`. The
 * handle is `await using`-able: leaving the block completes the session
 * (workspace kept, sandbox released).
 */
export class Session {
  readonly client: Client;
  readonly id: string;
  readonly agent: string;
  /** Set once this handle completed the session. */
  #completed = false;

  constructor(client: Client, id: string, agent: string) {
    this.client = client;
    this.id = id;
    this.agent = agent;
  }

  static #runBody(command: string, options: RunOptions): RunRequest {
    const body: RunRequest = { command };
    if (options.timeoutMs !== undefined) body.timeout_ms = options.timeoutMs;
    if (options.stdin !== undefined) body.stdin = options.stdin;
    if (options.detach !== undefined) body.detach = options.detach;
    return body;
  }

  /** Runs `command` as `bash -c` in `/workspace` and waits for it. */
  async run(command: string, options: RunOptions = {}): Promise<RunResult> {
    return this.client.request({
      method: "POST",
      path: `/v1/sessions/${quotePath(this.id)}/run`,
      json: Session.#runBody(command, options),
      signal: options.signal,
    });
  }

  /**
   * Runs `command` and yields its output as it comes: `stdout` and `stderr`
   * events, then one `exit` (or `error`) event. Breaking out of the loop
   * closes the stream; aborting the signal rejects the pending `next()`.
   */
  async *stream(command: string, options: RunOptions = {}): AsyncGenerator<RunEvent, void, undefined> {
    const response = await this.client.requestRaw({
      method: "POST",
      path: `/v1/sessions/${quotePath(this.id)}/run`,
      json: Session.#runBody(command, options),
      accept: "text/event-stream",
      signal: options.signal,
    });
    if (!response.body) throw new SandkeepError(0, "the server sent no event stream");
    try {
      for await (const raw of readEvents(response.body)) {
        let data: Record<string, unknown>;
        try {
          data = JSON.parse(raw.data) as Record<string, unknown>;
        } catch (e) {
          throw new SandkeepError(0, `an event that is not JSON: ${raw.data.slice(0, 200)}`, { cause: e });
        }
        if (raw.event === "stdout" || raw.event === "stderr") {
          yield { kind: raw.event, data: String(data["data"] ?? "") };
        } else if (raw.event === "exit") {
          yield {
            kind: "exit",
            exit_code: Number(data["exit_code"]),
            truncated: Boolean(data["truncated"]),
            timed_out: Boolean(data["timed_out"]),
          };
          return;
        } else if (raw.event === "error") {
          yield { kind: "error", error: String(data["error"] ?? ""), status: Number(data["status"] ?? 500) };
          return;
        }
      }
    } catch (e) {
      if (isAbort(e, options.signal) || e instanceof SandkeepError) throw e;
      throw new SandkeepError(0, `the event stream was cut: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
    throw new SandkeepError(0, "the stream ended without an exit event");
  }

  /** Like {@link run}, but over the stream (the output is joined). */
  async runStreamed(command: string, options: RunOptions = {}): Promise<RunResult> {
    const out = { stdout: [] as string[], stderr: [] as string[] };
    for await (const event of this.stream(command, options)) {
      switch (event.kind) {
        case "stdout":
        case "stderr":
          out[event.kind].push(event.data);
          break;
        case "exit":
          return {
            stdout: out.stdout.join(""),
            stderr: out.stderr.join(""),
            exit_code: event.exit_code,
            truncated: event.truncated,
            timed_out: event.timed_out,
          };
        case "error":
          throw new SandkeepError(event.status, event.error);
      }
    }
    throw new SandkeepError(0, "the stream ended without an exit event");
  }

  /** A file's bytes (`path` relative to `/workspace`). */
  async readFile(path: string, options: CallOptions = {}): Promise<Uint8Array> {
    return this.client.requestBytes({
      method: "GET",
      path: `/v1/sessions/${quotePath(this.id)}/files/${quotePath(path)}`,
      ...options,
    });
  }

  /** A file's text, decoded as UTF-8. */
  async readText(path: string, options: CallOptions = {}): Promise<string> {
    return new TextDecoder().decode(await this.readFile(path, options));
  }

  /** Writes a file (parent directories created); a string is written as UTF-8. */
  async writeFile(path: string, data: Uint8Array | ArrayBuffer | string, options: CallOptions = {}): Promise<Written> {
    return this.client.request({
      method: "PUT",
      path: `/v1/sessions/${quotePath(this.id)}/files/${quotePath(path)}`,
      body: bytesOf(data),
      ...options,
    });
  }

  /** Removes a file or directory tree (a missing one is fine). */
  async removeFile(path: string, options: CallOptions = {}): Promise<void> {
    await this.client.request({
      method: "DELETE",
      path: `/v1/sessions/${quotePath(this.id)}/files/${quotePath(path)}`,
      ...options,
    });
  }

  /** Keeps the workspace and releases the sandbox; the next call resumes. */
  async park(options: CallOptions = {}): Promise<SessionState> {
    return this.client.request({ method: "POST", path: `/v1/sessions/${quotePath(this.id)}/park`, ...options });
  }

  /** Keeps the workspace and forgets the session. */
  async complete(options: CallOptions = {}): Promise<SessionState> {
    const state = await this.client.request<SessionState>({
      method: "DELETE",
      path: `/v1/sessions/${quotePath(this.id)}`,
      ...options,
    });
    this.#completed = true;
    return state;
  }

  /**
   * Completes the session at the end of an `await using` block, unless this
   * handle completed it already; one the server no longer has (404, 410) is
   * fine.
   */
  async [Symbol.asyncDispose](): Promise<void> {
    if (this.#completed) return;
    try {
      await this.complete();
    } catch (e) {
      if (!(e instanceof SandkeepError && (e.status === 404 || e.status === 410))) throw e;
    }
  }
}
