/**
 * Local HTTP servers (127.0.0.1, a free port) that answer as a hostile server a tenant points the
 * controller at would: a body without end, or a fixed answer; each records what it was asked and
 * how much it wrote before the client went away.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One request a server received. */
export interface Received {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
}

/** A running server. */
export interface LocalServer {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  readonly received: Received[];
  /** Bytes of body written so far. */
  written(): number;
  /** Resolves when a connection has closed after the body started (the client let go). */
  readonly clientGone: Promise<void>;
  close(): Promise<void>;
}

/** What a handler answers with: headers, then either a fixed body or an endless one. */
export type Answer =
  { status?: number; headers?: Record<string, string>; body: string } | { endless: true; headers?: Record<string, string> };

const CHUNK = Buffer.alloc(64 * 1024, "a");

/** Starts a server answering every request with `answer(req, serverUrl)`. */
export async function serve(answer: (req: IncomingMessage, url: string) => Answer): Promise<LocalServer> {
  const received: Received[] = [];
  let written = 0;
  let gone!: () => void;
  const clientGone = new Promise<void>((resolve) => (gone = resolve));
  const server: Server = createServer((req, res) => {
    received.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers });
    req.resume();
    const a = answer(req, url);
    if ("endless" in a) return void writeEndless(res, a.headers ?? {}, (n) => (written += n), gone);
    res.writeHead(a.status ?? 200, { "content-type": "application/json", ...a.headers });
    written += Buffer.byteLength(a.body);
    res.end(a.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
  return {
    url,
    received,
    written: () => written,
    clientGone,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Writes chunks for as long as the client reads them; `onGone` when the connection closes. */
function writeEndless(res: ServerResponse, headers: Record<string, string>, count: (n: number) => void, onGone: () => void): void {
  res.writeHead(200, { "content-type": "application/json", ...headers });
  res.on("close", onGone);
  const pump = (): void => {
    while (!res.destroyed) {
      count(CHUNK.length);
      if (!res.write(CHUNK)) return void res.once("drain", pump);
    }
  };
  pump();
}
