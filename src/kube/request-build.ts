/** What a request sends, before authentication: its URL, its Accept and Content-Type headers, its JSON body (bounded) and its signal. */
import { KubeApiError, KubeReason } from "./errors.js";
import { RequestContext } from "./request-context.js";
import type { HttpRequest } from "./transport.js";

/** The URL of `req` on `server`, with its query. */
export function requestUrl(server: string, req: HttpRequest): URL {
  const url = new URL(server + req.path);
  for (const [k, v] of Object.entries(req.query ?? {})) {
    if (v !== undefined) url.searchParams.set(k, String(v));
  }
  return url;
}

/** The request's context before authentication: Accept, the JSON body and its type, the signal. */
export function requestContext(req: HttpRequest, url: URL): RequestContext {
  const ctx = new RequestContext(url.toString(), req.method);
  ctx.setHeaderParam("Accept", "application/json");
  if (req.body !== undefined) {
    ctx.setHeaderParam("Content-Type", req.contentType ?? "application/json");
    ctx.setBody(boundedBody(req));
  }
  if (req.signal !== undefined) ctx.setSignal(req.signal);
  return ctx;
}

/**
 * The largest request body sent: etcd's default `--max-request-bytes` (1.5 MiB), beyond which the
 * apiserver cannot store the object anyway. A larger body is refused here, before it is sent, so it
 * costs the one write a clear error instead of resetting the HTTP/2 connection every other request
 * shares.
 */
export const MAX_REQUEST_BODY_BYTES = 1_572_864;

/** The JSON of `req.body`, or a RequestEntityTooLarge error when it is over {@link MAX_REQUEST_BODY_BYTES}. */
function boundedBody(req: HttpRequest): string {
  const text = JSON.stringify(req.body);
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_REQUEST_BODY_BYTES) {
    throw new KubeApiError({
      status: 413,
      reason: KubeReason.RequestEntityTooLarge,
      message: `not sent: the request body is ${bytes} bytes, more than the ${MAX_REQUEST_BODY_BYTES} the apiserver can store (${req.method} ${req.path})`,
    });
  }
  return text;
}
