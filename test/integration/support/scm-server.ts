/**
 * A real HTTP server on 127.0.0.1 that answers as an SCM provider's REST API does: JSON bodies,
 * strong ETags with `If-None-Match` → 304, pagination helpers (Link header, page numbers), and a
 * switch to refuse requests with a rate-limit answer. Every request is logged for assertions. Given
 * a certificate it answers over HTTPS.
 */
import { createHash } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createTlsServer } from "node:https";
import type { AddressInfo } from "node:net";

/** One request as the server saw it. */
export interface Seen {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** What a handler answers (a JSON `body`, or raw `text`). */
export interface Reply {
  readonly status?: number;
  readonly body?: unknown;
  readonly text?: string;
  readonly headers?: Record<string, string>;
}

/** Answers one request (now or later), or undefined for 404. */
export type Handler = (req: Seen) => Reply | undefined | Promise<Reply | undefined>;

/** The provider API under test. */
export class FakeApi {
  readonly seen: Seen[] = [];
  /** When set, every request is answered with this (a rate-limit refusal, say). */
  override: Reply | undefined;
  /** Send ETags and honour If-None-Match. */
  etags = true;
  private server: Server | undefined;
  private routes: Array<{ method: string; pattern: RegExp; handler: Handler }> = [];
  url = "";

  /** Adds a route; `path` may contain `*` for one segment. Later routes win. */
  on(method: string, path: string, handler: Handler | Reply): this {
    const pattern = new RegExp(`^${path.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]+")}$`);
    this.routes.unshift({ method, pattern, handler: typeof handler === "function" ? handler : () => handler });
    return this;
  }

  /** Removes every route and log entry. */
  reset(): void {
    this.routes = [];
    this.seen.length = 0;
    this.override = undefined;
  }

  /** Requests matching a path prefix. */
  calls(prefix = ""): Seen[] {
    return this.seen.filter((s) => s.path.startsWith(prefix));
  }

  /** `tls`: a certificate and key (PEM) to answer over HTTPS instead of HTTP. */
  constructor(private readonly tls?: { cert: string; key: string }) {}

  async start(): Promise<void> {
    const handler = (req: IncomingMessage, res: ServerResponse): void => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString("utf8")));
      req.on("end", () => void answer());
      const answer = async (): Promise<void> => {
        const u = new URL(req.url ?? "/", "http://x");
        const seen: Seen = {
          method: req.method ?? "GET",
          path: decodeURIComponent(u.pathname),
          query: u.searchParams,
          headers: req.headers,
          body,
        };
        this.seen.push(seen);
        const route = this.routes.find((r) => r.method === seen.method && r.pattern.test(seen.path));
        const reply = this.override ?? (await route?.handler(seen)) ?? { status: 404, body: { message: "Not Found" } };
        const text = reply.text ?? (reply.body === undefined ? "" : JSON.stringify(reply.body));
        const headers: Record<string, string> = { "Content-Type": "application/json", ...reply.headers };
        const status = reply.status ?? 200;
        if (this.etags && status === 200) {
          const etag = `"${createHash("sha1").update(text).digest("hex")}"`;
          headers["ETag"] = etag;
          if (req.headers["if-none-match"] === etag) {
            res.writeHead(304, headers).end();
            return;
          }
        }
        res.writeHead(status, headers).end(text);
      };
    };
    this.server = this.tls === undefined ? createServer(handler) : createTlsServer(this.tls, handler);
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.url = `${this.tls === undefined ? "http" : "https"}://127.0.0.1:${String((this.server.address() as AddressInfo).port)}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

/**
 * A page of `items` by `page` / `per_page` query parameters (GitHub, GitLab, Gitea style), with a
 * `Link` header pointing to the next page.
 */
export function linkPage(req: Seen, items: readonly unknown[], opts: { perPageParam?: string; defaultPerPage?: number } = {}): Reply {
  const perPage = Number(req.query.get(opts.perPageParam ?? "per_page") ?? opts.defaultPerPage ?? 30);
  const page = Number(req.query.get("page") ?? "1");
  const slice = items.slice((page - 1) * perPage, page * perPage);
  const headers: Record<string, string> = {};
  if (page * perPage < items.length) {
    const q = new URLSearchParams(req.query);
    q.set("page", String(page + 1));
    headers["Link"] =
      `<http://${String(req.headers.host)}${req.path}?${q.toString()}>; rel="next", <http://${String(req.headers.host)}${req.path}?page=1>; rel="first"`;
  }
  return { body: slice, headers };
}
