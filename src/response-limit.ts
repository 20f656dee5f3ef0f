/**
 * Size limits on what servers a tenant may point the controller at send back (SCM providers, plugin
 * generators, Helm repositories): a body is read as it arrives and abandoned the moment it passes
 * its limit, so an endless or oversized answer costs at most the limit in memory. The error names
 * who answered, the URL (without query or user info), the limit and the setting that raises it.
 * Pure, except {@link readBounded}, which consumes the stream it is given.
 */
import { AppSetError } from "./errors.js";

/** The reason of every {@link ResponseTooLargeError}. */
export const RESPONSE_TOO_LARGE = "ResponseTooLarge";

/** 1 MiB. */
export const MIB = 1024 * 1024;

/** The facts of one answer over its limit. */
export interface SizeLimitDetail {
  /** Who answered, as a message names it: `SCM provider "github"`, `plugin "my-plugin"`. */
  readonly source: string;
  /** The request's URL. */
  readonly url: string;
  readonly limitBytes: number;
  /** The setting that raises the limit, as a person would set it (`--scm-max-response-bytes`). */
  readonly setting: string;
}

/** A URL without its query, fragment and user info. */
export function urlShown(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return url;
  }
}

/** A byte count as people read it: `10485760 bytes (10 MiB)`. */
export function bytesText(n: number): string {
  const mib = n / MIB;
  return n >= MIB && Number.isInteger(mib * 10) ? `${String(n)} bytes (${String(mib)} MiB)` : `${String(n)} bytes`;
}

/** `SCM provider "github" answered more than 10485760 bytes (10 MiB) for https://…; raise --scm-max-response-bytes to accept a larger answer`. */
export function sizeLimitMessage(d: SizeLimitDetail): string {
  return `${d.source} answered more than ${bytesText(d.limitBytes)} for ${urlShown(d.url)}; raise ${d.setting} to accept a larger answer`;
}

/** An answer was larger than its limit; reading it stopped there. */
export class ResponseTooLargeError extends AppSetError {
  constructor(
    readonly detail: SizeLimitDetail,
    message: string = sizeLimitMessage(detail),
  ) {
    super(RESPONSE_TOO_LARGE, message);
  }
}

/**
 * Reads `body` whole unless it passes `detail.limitBytes`; then stops reading (the stream's
 * `return` lets its owner close the connection) and rejects with {@link ResponseTooLargeError}.
 */
export async function readBounded(body: AsyncIterable<Uint8Array>, detail: SizeLimitDetail): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += chunk.byteLength;
    if (total > detail.limitBytes) throw new ResponseTooLargeError(detail);
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks, total);
}
