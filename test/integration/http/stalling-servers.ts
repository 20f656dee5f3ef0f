/**
 * Real local servers that misbehave in time, for the HTTP time-limit tests:
 * - {@link silentServer}: a TCP server that accepts every connection, reads what it is sent, and
 *   never writes a byte (a half-open peer);
 * - {@link stalledBodyServer}: an HTTP server that sends the status line, headers and the start of
 *   a body, then stalls;
 * - {@link unacceptingListener}: a listening socket, in a separate node process, whose accept queue
 *   is full and never drained, so a new connection attempt never completes.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import { connect, createServer, type AddressInfo, type Server, type Socket } from "node:net";

/** A server under test. */
export interface Misbehaving {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** Requests (or connections that sent data) seen so far. */
  count(): number;
  /** Resolves once the server has seen `n` of them. */
  seen(n: number): Promise<void>;
  close(): Promise<void>;
}

function urlOf(server: { address(): AddressInfo | string | null }): string {
  return `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
}

/** Counts events and resolves waiters once a count is reached. */
class Counter {
  private n = 0;
  private waiters: Array<{ n: number; resolve: () => void }> = [];

  bump(): void {
    this.n++;
    const due = this.waiters.filter((w) => w.n <= this.n);
    this.waiters = this.waiters.filter((w) => w.n > this.n);
    for (const w of due) w.resolve();
  }

  get count(): number {
    return this.n;
  }

  reached(n: number): Promise<void> {
    if (this.n >= n) return Promise.resolve();
    return new Promise<void>((resolve) => this.waiters.push({ n, resolve }));
  }
}

function listen(server: Server | HttpServer): Promise<void> {
  return new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
}

/** A TCP server that accepts connections and never answers. */
export async function silentServer(): Promise<Misbehaving> {
  const sockets = new Set<Socket>();
  const counter = new Counter();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.once("data", () => counter.bump());
    socket.on("error", () => undefined);
    socket.on("close", () => sockets.delete(socket));
  });
  await listen(server);
  return {
    url: urlOf(server),
    count: () => counter.count,
    seen: (n) => counter.reached(n),
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** An HTTP server that answers 200 with the first bytes of a JSON body, then stalls. */
export async function stalledBodyServer(): Promise<Misbehaving> {
  const counter = new Counter();
  const server = createHttpServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "Content-Type": "application/json", "Content-Length": "4096" });
      res.write('{"output": {"parameters": [');
      counter.bump();
    });
  });
  await listen(server);
  return {
    url: urlOf(server),
    count: () => counter.count,
    seen: (n) => counter.reached(n),
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * A child node process that listens with an accept queue of two and then never accepts: right
 * after writing its port (synchronous on a pipe) it blocks its only thread, before its event loop
 * could take a connection off the queue.
 */
const UNACCEPTING = `
const s = require("node:net").createServer();
s.listen({ host: "127.0.0.1", port: 0, backlog: 1 }, () => {
  process.stdout.write(String(s.address().port) + "\\n");
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
});
`;

function connected(port: number): Promise<Socket> {
  return new Promise<Socket>((resolve, reject) => {
    const s = connect(port, "127.0.0.1", () => resolve(s));
    s.once("error", reject);
  });
}

/**
 * A listening port where a new connection never completes: the listener's accept queue is filled
 * by two connections of our own, and the process that owns it never accepts.
 */
export async function unacceptingListener(): Promise<{ readonly url: string; close(): Promise<void> }> {
  const child: ChildProcess = spawn(process.execPath, ["-e", UNACCEPTING], { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once("error", reject);
    child.stdout?.once("data", (d: Buffer) => resolve(Number(d.toString("utf8").trim())));
  });
  const fillers = [await connected(port), await connected(port)];
  return {
    url: `http://127.0.0.1:${String(port)}`,
    close: async () => {
      for (const f of fillers) f.destroy();
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.kill("SIGKILL");
      await exited;
    },
  };
}
