/**
 * A tiny HTTPS/HTTP client for the harness: it talks to the apiserver and etcd before any project
 * code is involved, so it depends on nothing but Node.
 */
import { request as httpsRequest } from "node:https";
import { request as httpRequest } from "node:http";

/** The answer of one request. */
export interface HttpResult {
  status: number;
  body: string;
}

/** Sends one request; `token` adds a bearer token; TLS certificates are not verified (test-only). */
export function httpCall(
  method: string,
  url: string,
  opts: { token?: string; body?: unknown; contentType?: string; timeoutMs?: number } = {},
): Promise<HttpResult> {
  const u = new URL(url);
  const payload = opts.body === undefined ? undefined : typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body);
  const headers: Record<string, string> = { accept: "application/json" };
  if (opts.token !== undefined) headers.authorization = `Bearer ${opts.token}`;
  if (payload !== undefined) {
    headers["content-type"] = opts.contentType ?? "application/json";
    headers["content-length"] = String(Buffer.byteLength(payload));
  }
  const doRequest = u.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise<HttpResult>((resolve, reject) => {
    const req = doRequest(u, { method, headers, rejectUnauthorized: false, timeout: opts.timeoutMs ?? 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(new Error(`timeout: ${method} ${url}`)));
    req.on("error", reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

/** Polls `check` until it returns a value other than `undefined`, or fails after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined>,
  { timeoutMs = 60_000, intervalMs = 200 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      const why = last instanceof Error ? `: ${last.message}` : "";
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${why}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
