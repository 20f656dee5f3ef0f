/** Newline-delimited JSON streams (watches) read line by line, with a bound on a line's length. */
import { KubeApiError, KubeReason } from "./errors.js";

/**
 * The longest line of a stream: far above the largest object etcd stores (1.5 MiB by default) in its
 * watch event, so only a broken or hostile server reaches it.
 */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;

/**
 * Splits a byte stream into lines (without the newline) and hands each non-empty one, trimmed, to
 * `onLine`. Linear in the bytes read: only each new chunk is searched for the newline, and a line
 * that spans chunks is joined and decoded once when its end arrives (a watch event of a large
 * ApplicationSet comes in dozens of chunks; searching the whole text so far after each one was
 * quadratic, and flattened a new copy of it every time). A newline byte never occurs inside a
 * UTF-8 multi-byte character, so splitting the bytes first decodes the same text. A line longer
 * than `maxLineBytes` ({@link MAX_LINE_BYTES}) rejects.
 */
export async function readLines(
  stream: AsyncIterable<Uint8Array>,
  onLine: (line: string) => void,
  maxLineBytes = MAX_LINE_BYTES,
): Promise<void> {
  const decoder = new TextDecoder();
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  const emit = (last: Uint8Array): void => {
    const bytes = pending.length === 0 ? last : Buffer.concat([...pending, last]);
    pending = [];
    pendingBytes = 0;
    const line = decoder.decode(bytes).trim();
    if (line !== "") onLine(line);
  };
  for await (const chunk of stream) {
    let start = 0;
    for (let nl = chunk.indexOf(0x0a); nl >= 0; nl = chunk.indexOf(0x0a, start)) {
      emit(chunk.subarray(start, nl));
      start = nl + 1;
    }
    if (start < chunk.length) {
      pending.push(chunk.subarray(start));
      pendingBytes += chunk.length - start;
      if (pendingBytes > maxLineBytes) {
        throw new KubeApiError({
          status: 0,
          reason: KubeReason.Unknown,
          message: `a line of the response is longer than ${maxLineBytes} bytes`,
        });
      }
    }
  }
  if (pending.length > 0) emit(new Uint8Array(0));
}
