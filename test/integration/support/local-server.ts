/** An HTTP(S) handler served on 127.0.0.1 at a free port, for test servers. */
import { createServer, type RequestListener, type Server } from "node:http";
import { createServer as createTlsServer, type ServerOptions as TlsServerOptions } from "node:https";
import type { AddressInfo } from "node:net";

/** A listening server: its URL (`https://localhost:<port>` with TLS) and how to stop it. */
export interface LocalServer {
  readonly url: string;
  stop(): Promise<void>;
}

/** Serves `handler` over HTTP, or HTTPS on `localhost` with `tls`. */
export async function listenLocal(handler: RequestListener, tls?: TlsServerOptions): Promise<LocalServer> {
  const server: Server = tls === undefined ? createServer(handler) : createTlsServer(tls, handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: tls === undefined ? `http://127.0.0.1:${String(port)}` : `https://localhost:${String(port)}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
