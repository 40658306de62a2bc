/**
 * The shapes `sandkeep serve` sends and takes, written by hand after its
 * OpenAPI document (`GET /v1/openapi.json`, `src/server/openapi.rs`). Field
 * names are the server's own (snake_case where it uses it), so what a
 * caller reads here is what the wire carries; `test/openapi.test.ts` checks
 * every interface below against the running server's document.
 *
 * @module
 */

/** `GET /v1/health`. */
export interface Health {
  status: string;
  version: string;
  /** `local` or `docker`. */
  backend: string;
  /** Open sessions on this server. */
  sessions: number;
}

/** `POST /v1/agents/{agent}/sessions` (201). */
export interface Created {
  session: string;
  agent: string;
}

/** What a park (`parked: true`) or a completion (`completed: true`) answers. */
export interface SessionState {
  session: string;
  parked?: boolean;
  completed?: boolean;
  /** The head generation after keeping the workspace (null: none kept yet). */
  generation: string | null;
  /**
   * Set when the store did not answer after the park: the workspace is kept
   * in the worker's spool and uploaded when the store answers.
   */
  warning?: string;
}

/** The body of `POST /v1/sessions/{id}/run`. */
export interface RunRequest {
  /** The script, as for `bash -c`. */
  command: string;
  timeout_ms?: number | null;
  stdin?: string | null;
  /**
   * Let the run go on when the client disconnects (default: a client that
   * goes away cancels its run).
   */
  detach?: boolean | null;
}

/** A finished run. */
export interface RunResult {
  stdout: string;
  stderr: string;
  exit_code: number;
  /** The output went past the server's limit and was cut. */
  truncated: boolean;
  /** The run's time limit ended it (exit code 124). */
  timed_out: boolean;
}

/** A streamed chunk of output: `stdout` or `stderr`. */
export interface RunOutputEvent {
  kind: "stdout" | "stderr";
  data: string;
}

/** The end of a streamed run. */
export interface RunExitEvent {
  kind: "exit";
  exit_code: number;
  truncated: boolean;
  timed_out: boolean;
}

/** A streamed run the server could not carry out (after the stream began). */
export interface RunErrorEvent {
  kind: "error";
  error: string;
  status: number;
}

/** One server-sent event of a streamed run: chunks, then one `exit` or `error`. */
export type RunEvent = RunOutputEvent | RunExitEvent | RunErrorEvent;

/** `PUT /v1/sessions/{id}/files/{path}`. */
export interface Written {
  path: string;
  bytes: number;
}

/** The kinds of mindlog entry the server accepts. */
export type MindlogKind = "woke" | "heard" | "thought" | "said" | "did" | "note";

/** One mindlog entry. */
export interface MindlogEntry {
  id: string;
  /** RFC 3339 time of the append. */
  at: string;
  kind: string;
  text: string;
  sessionId?: string | null;
  generation?: string;
}

/** A kept generation of an agent's workspace. */
export interface Generation {
  id: string;
  seq: number;
  parents: string[];
  session?: string | null;
  /** Unix seconds. */
  created: number;
  added: number;
  modified: number;
  deleted: number;
  bytes_new: number;
  note?: string | null;
}

/** A path a generation holds. */
export interface FileEntry {
  path: string;
  kind: "file" | "dir" | "symlink";
  mode: number;
  size: number;
  /** Unix seconds. */
  mtime: number;
}

/** A generation and every path it holds. */
export interface GenerationWithFiles extends Generation {
  files: FileEntry[];
}

/** One change between two generations. */
export interface Change {
  /** Added, modified or deleted. */
  change: "A" | "M" | "D";
  path: string;
  size: number;
}

/** `POST /v1/agents/{agent}/verify`. */
export interface VerifyReport {
  ok: boolean;
  /** What failed its check (empty when `ok`). */
  damaged: string[];
}

/** An OpenAPI 3 document (only the parts this client reads are typed). */
export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description?: string };
  paths: Record<string, Record<string, { operationId?: string } & Record<string, unknown>>>;
  components?: { schemas?: Record<string, Record<string, unknown>> };
}
