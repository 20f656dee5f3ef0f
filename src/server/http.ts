/**
 * One small node:http server factory for the controller's plain endpoints: it binds a Go-style
 * address (`:8080`, `127.0.0.1:0`, `[::1]:8081`), routes exact paths (and path prefixes ending in
 * `/`) to handlers, answers 404/405 otherwise, turns a handler failure into a 500, and closes cleanly:
 * no new connections, idle keep-alive connections dropped at once, busy ones after a grace period.
 */
import type { IncomingMessage, Server, ServerOptions, ServerResponse } from "node:http";
import { nodeHttp } from "../node-http.js";
import type { AddressInfo } from "node:net";
import type { Clock } from "../clock/index.js";
import { errorMessage } from "../errors.js";
import type { Logger } from "../log/logger.js";

/** Answers one request. */
export type Handler = (req: IncomingMessage, res: ServerResponse, url: URL) => void | Promise<void>;

/** Path → handler. A key ending in `/` also serves every path below it. */
export type Routes = Readonly<Record<string, Handler>>;

/** Options of {@link startHttpServer}. */
export interface HttpServerOptions {
  /** Go-style listen address: `[host]:port`; an empty host listens on every interface. */
  addr: string;
  routes: Routes;
  logger: Logger;
  clock: Clock;
  /** What the server is, for logs (e.g. "metrics"). */
  name: string;
  /** How long {@link HttpEndpoint.close} waits for busy connections (default 5 s). */
  closeGraceMs?: number;
  /** Hand every method to the handlers, which answer 405 themselves (default: GET and HEAD only). */
  anyMethod?: boolean;
  /** node:http request limits (header and request timeouts, keep-alive timeout, header size); node's defaults otherwise. */
  limits?: Pick<ServerOptions, "headersTimeout" | "requestTimeout" | "keepAliveTimeout" | "connectionsCheckingInterval" | "maxHeaderSize">;
}

/** A listening server. */
export interface HttpEndpoint {
  /** The bound port (useful with port 0). */
  readonly port: number;
  /** `http://host:port` of the bound socket (loopback when bound to every interface). */
  readonly url: string;
  /** Stops listening and resolves once every connection is closed. */
  close(): Promise<void>;
}

/** Splits a Go-style listen address into host (undefined: every interface) and port. */
export function parseListenAddress(addr: string): { host: string | undefined; port: number } {
  const colon = addr.lastIndexOf(":");
  if (colon < 0) throw new Error(`address ${addr}: missing port in address`);
  const hostPart = addr.slice(0, colon).replace(/^\[(.*)\]$/, "$1");
  const portText = addr.slice(colon + 1);
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65_535) throw new Error(`address ${addr}: invalid port`);
  return { host: hostPart === "" ? undefined : hostPart, port };
}

/** The handler of a path: exact match first, then the longest matching prefix route. */
function route(routes: Routes, path: string): Handler | undefined {
  const exact = routes[path];
  if (exact !== undefined) return exact;
  const prefix = Object.keys(routes)
    .filter((k) => k.endsWith("/") && path.startsWith(k))
    .sort((a, b) => b.length - a.length)[0];
  return prefix === undefined ? undefined : routes[prefix];
}

/** Writes a plain-text response. */
export function sendText(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, {
    "Content-Type": "text/plain; charset=utf-8",
    "Content-Length": Buffer.byteLength(body),
    "X-Content-Type-Options": "nosniff",
  });
  res.end(body);
}

async function dispatch(options: HttpServerOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { routes, logger } = options;
  const url = new URL(req.url ?? "/", "http://localhost");
  const handler = route(routes, url.pathname);
  if (handler === undefined) return sendText(res, 404, "404 page not found\n");
  if (options.anyMethod !== true && req.method !== "GET" && req.method !== "HEAD") return sendText(res, 405, "Method Not Allowed\n");
  try {
    await handler(req, res, url);
  } catch (err) {
    logger.error({ path: url.pathname, err: errorMessage(err) }, "request handler failed");
    if (!res.headersSent) sendText(res, 500, "Internal Server Error\n");
    else res.destroy();
  }
}

/** Binds and starts a server; rejects when the address cannot be bound. */
export async function startHttpServer(options: HttpServerOptions): Promise<HttpEndpoint> {
  const { host, port } = parseListenAddress(options.addr);
  const server = nodeHttp.createServer(options.limits ?? {}, (req, res) => void dispatch(options, req, res));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ host, port }, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const bound = server.address() as AddressInfo;
  const shownHost = host === undefined ? "127.0.0.1" : bound.family === "IPv6" ? `[${bound.address}]` : bound.address;
  options.logger.info({ server: options.name, addr: options.addr, port: bound.port }, "serving");
  return { port: bound.port, url: `http://${shownHost}:${bound.port}`, close: () => closeServer(server, options) };
}

/** Stops accepting, drops idle connections now and busy ones after the grace period. */
function closeServer(server: Server, options: HttpServerOptions): Promise<void> {
  return new Promise<void>((resolve) => {
    if (!server.listening) return resolve();
    const timer = options.clock.setTimeout(() => server.closeAllConnections(), options.closeGraceMs ?? 5_000);
    server.close(() => {
      options.clock.clearTimeout(timer);
      resolve();
    });
    server.closeIdleConnections();
  });
}
