/**
 * Server-sent events read from a fetch body, as the HTML standard's event
 * stream format has them: `event:` and `data:` fields, lines ended by LF,
 * CRLF or CR, an event dispatched at a blank line, `:` comments (the
 * server's keep-alives) skipped.
 *
 * @module
 */

/** One dispatched event: its type (`message` when none was given) and data. */
export interface RawEvent {
  event: string;
  data: string;
}

/**
 * The events of `body`, as they arrive. Leaving the loop early cancels the
 * body, so the connection closes.
 */
export async function* readEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<RawEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let event = "";
  let data: string[] = [];
  let done = false;
  try {
    while (!done) {
      const chunk = await reader.read();
      if (chunk.done) {
        done = true;
        buffer += decoder.decode();
        // A last line without its terminator still counts.
        if (buffer.length > 0) buffer += "\n";
      } else {
        buffer += decoder.decode(chunk.value, { stream: true });
      }
      for (;;) {
        const end = lineEnd(buffer, done);
        if (end === undefined) break;
        const line = buffer.slice(0, end.at);
        buffer = buffer.slice(end.at + end.length);
        if (line === "") {
          if (data.length > 0) {
            yield { event: event || "message", data: data.join("\n") };
          }
          event = "";
          data = [];
          continue;
        }
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? "" : line.slice(colon + 1);
        if (value.startsWith(" ")) value = value.slice(1);
        if (field === "event") event = value;
        else if (field === "data") data.push(value);
      }
    }
  } finally {
    if (!done) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}

/**
 * Where the first line of `buffer` ends and how long its terminator is; a CR
 * at the very end waits for the next chunk (it may be half of a CRLF)
 * unless the body is over.
 */
function lineEnd(buffer: string, final: boolean): { at: number; length: number } | undefined {
  for (let i = 0; i < buffer.length; i++) {
    const c = buffer.charCodeAt(i);
    if (c === 10) return { at: i, length: 1 };
    if (c === 13) {
      if (i + 1 < buffer.length) return { at: i, length: buffer.charCodeAt(i + 1) === 10 ? 2 : 1 };
      return final ? { at: i, length: 1 } : undefined;
    }
  }
  return undefined;
}
