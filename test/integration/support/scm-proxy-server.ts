/**
 * A real HTTP forward proxy on 127.0.0.1 (node:http): absolute-form requests are forwarded, `CONNECT`
 * opens a TCP tunnel. Every host name resolves to 127.0.0.1, so a request for `scm.test` only works
 * when it went through the proxy. It counts what it relayed and can require proxy credentials.
 * Given a certificate it is an HTTPS proxy (node:https): clients speak TLS to the proxy itself,
 * addressed as `localhost`.
 */
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createTlsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { connect } from "node:net";

/** One relayed request: the method and the target (an absolute URL, or `host:port` for CONNECT). */
export interface Relayed {
  readonly method: string;
  readonly target: string;
  readonly auth: string | undefined;
}

/** The proxy under test. */
export class FakeProxy {
  readonly relayed: Relayed[] = [];
  /** When set, requests without this `Proxy-Authorization` are answered 407. */
  requireAuth: string | undefined;
  url = "";
  private server: Server | undefined;
  private readonly tunnels = new Set<{ destroy(): void }>();

  /** `tls`: the proxy's own certificate and key (PEM), making it an HTTPS proxy. */
  constructor(private readonly tls?: { cert: string; key: string }) {}

  async start(): Promise<void> {
    const handler = (req: IncomingMessage, res: ServerResponse): void => {
      const auth = req.headers["proxy-authorization"];
      this.relayed.push({ method: req.method ?? "", target: req.url ?? "", auth });
      if (this.requireAuth !== undefined && auth !== this.requireAuth) {
        res.writeHead(407, { "Proxy-Authenticate": "Basic" }).end();
        return;
      }
      const target = new URL(req.url ?? "");
      const headers = { ...req.headers };
      delete headers["proxy-authorization"];
      const up = request(
        { hostname: "127.0.0.1", port: target.port, path: `${target.pathname}${target.search}`, method: req.method, headers },
        (ures) => {
          res.writeHead(ures.statusCode ?? 502, ures.headers);
          ures.pipe(res);
        },
      );
      up.on("error", () => res.writeHead(502).end());
      req.pipe(up);
    };
    const server: Server = this.tls === undefined ? createServer(handler) : createTlsServer(this.tls, handler);
    server.on("connect", (req, client) => {
      const auth = req.headers["proxy-authorization"];
      this.relayed.push({ method: "CONNECT", target: req.url ?? "", auth });
      if (this.requireAuth !== undefined && auth !== this.requireAuth) {
        client.end("HTTP/1.1 407 Proxy Authentication Required\r\n\r\n");
        return;
      }
      this.tunnels.add(client);
      const port = Number((req.url ?? "").split(":").pop());
      const upstream = connect(port, "127.0.0.1", () => {
        client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        upstream.pipe(client);
        client.pipe(upstream);
      });
      this.tunnels.add(upstream);
      upstream.on("error", () => client.destroy());
      client.on("error", () => upstream.destroy());
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = String((server.address() as AddressInfo).port);
    this.url = this.tls === undefined ? `http://127.0.0.1:${port}` : `https://localhost:${port}`;
  }

  async stop(): Promise<void> {
    for (const t of this.tunnels) t.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}
