/**
 * The one error type a request can fail with (besides the caller's own
 * abort, which is re-thrown as the platform gives it).
 *
 * @module
 */

/**
 * A request the server refused or could not serve. `message` is the
 * server's `{"error": ...}` text as it sent it (or what else explains the
 * failure), `status` the HTTP status.
 */
export class SandkeepError extends Error {
  /** The HTTP status; 0 when the server could not be reached or its answer was cut. */
  readonly status: number;
  /** Seconds a 429 asked to wait (`Retry-After`), when it said. */
  readonly retryAfter: number | undefined;

  constructor(status: number, message: string, options?: { retryAfter?: number; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "SandkeepError";
    this.status = status;
    this.retryAfter = options?.retryAfter;
  }

  override toString(): string {
    return this.status ? `${this.name} ${this.status}: ${this.message}` : `${this.name}: ${this.message}`;
  }
}

/** True when `e` is the abort of `signal` (or any AbortError). */
export function isAbort(e: unknown, signal?: AbortSignal): boolean {
  if (signal?.aborted && (e === signal.reason || (e instanceof Error && e.name === "AbortError"))) {
    return true;
  }
  return e instanceof Error && (e.name === "AbortError" || e.name === "TimeoutError");
}
