/**
 * One authenticated request on the wire, through undici's `request` rather than `fetch`. fetch
 * keeps headers in a Fetch `Headers` list, which joins repeated names into one `a, b` value; the
 * apiserver reads each `Impersonate-Group` line as one group, so several `--as-group`s must go out
 * as separate lines, as client-go sends them. undici's `request` sends a flat list of header lines
 * as given over HTTP/1.1, but its HTTP/2 client (which the apiserver negotiates over TLS) joins
 * repeated names too: a request that repeats a header is sent over HTTP/1.1 (undici's `allowH2:
 * false` per request, a connection pool of its own), every other one as before.
 *
 * What fetch did on top is done here as client-go does it: `Accept-Encoding: gzip` unless the
 * caller set its own (`--disable-compression` sends `identity`), and a gzip (or deflate, br, zstd)
 * answer is decompressed by undici's decompress interceptor, error answers included.
 */
import type { RequestContext } from "./request-context.js";
import { decompressInterceptor, getGlobalDispatcher, request, type Dispatcher } from "../undici.js";

/** An answer: its status, and its body read once as text or as a byte stream. */
export interface WireResponse {
  readonly status: number;
  text(): Promise<string>;
  stream(): AsyncIterable<Uint8Array>;
}

const decompress = decompressInterceptor({ skipErrorResponses: false });

/** Each dispatcher composed with {@link decompress} once, not on every request. */
const decompressing = new WeakMap<Dispatcher, Dispatcher>();

function withDecompress(d: Dispatcher): Dispatcher {
  let composed = decompressing.get(d);
  if (composed === undefined) {
    composed = d.compose(decompress);
    decompressing.set(d, composed);
  }
  return composed;
}

/**
 * The header lines of `ctx` (set by the kubeconfig's authentication) with `extra` replacing those of
 * the same names; repeated names in `extra` stay separate lines, in order.
 */
export function headerLines(ctx: RequestContext, extra: ReadonlyArray<readonly [string, string]>): string[] {
  const replaced = new Set(extra.map(([name]) => name.toLowerCase()));
  const lines: string[] = [];
  for (const [name, value] of Object.entries(ctx.getHeaders())) {
    if (!replaced.has(name.toLowerCase())) lines.push(name, value);
  }
  for (const [name, value] of extra) lines.push(name, value);
  if (!lines.some((l, i) => i % 2 === 0 && l.toLowerCase() === "accept-encoding")) lines.push("Accept-Encoding", "gzip");
  return lines;
}

/** Sends `ctx` with `extra` headers on its dispatcher (undici's global one when it has none). */
export async function sendContext(ctx: RequestContext, extra: ReadonlyArray<readonly [string, string]>): Promise<WireResponse> {
  const dispatcher = withDecompress(ctx.getDispatcher() ?? getGlobalDispatcher());
  const signal = ctx.getSignal();
  const headers = headerLines(ctx, extra);
  const options: Parameters<typeof request>[1] & { allowH2?: boolean } = {
    method: ctx.getHttpMethod(),
    headers,
    body: ctx.getBody(),
    dispatcher,
    ...(signal === undefined ? {} : { signal }),
    ...(repeatsAName(headers) ? { allowH2: false } : {}),
  };
  const res = await request(ctx.getUrl(), options);
  return { status: res.statusCode, text: () => res.body.text(), stream: () => res.body };
}

/** Whether a flat header list names one header twice (case-insensitively). */
export function repeatsAName(lines: readonly string[]): boolean {
  const names = new Set<string>();
  for (let i = 0; i < lines.length; i += 2) {
    const name = lines[i]!.toLowerCase();
    if (names.has(name)) return true;
    names.add(name);
  }
  return false;
}
