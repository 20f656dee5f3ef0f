/**
 * What the time-limit tests need around a git command: a Git server that accepts connections and
 * never answers, and a view of the processes running (`ps`), to find a command's process group and
 * check that nothing of it is left.
 */
import { execFileSync } from "node:child_process";
import { createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";

/** A TCP server on 127.0.0.1 that accepts every connection and holds it open, silent. */
export interface SilentServer {
  readonly port: number;
  /** Connections accepted so far; one is destroyed once its client has closed it. */
  readonly sockets: readonly Socket[];
  /** Resolves at the next accepted connection. */
  nextConnection(): Promise<Socket>;
  stop(): Promise<void>;
}

/** Starts a {@link SilentServer}. */
export async function startSilentServer(): Promise<SilentServer> {
  const sockets: Socket[] = [];
  const waiting: Array<(s: Socket) => void> = [];
  const server: Server = createServer((socket) => {
    socket.on("error", () => undefined);
    // Read and drop what the client sends, so its going away (end of stream) is seen.
    socket.on("end", () => socket.destroy());
    socket.resume();
    sockets.push(socket);
    for (const w of waiting.splice(0)) w(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    sockets,
    nextConnection: () => new Promise((resolve) => waiting.push(resolve)),
    stop: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** One running process. */
export interface ProcessRow {
  readonly pid: number;
  readonly pgid: number;
  readonly args: string;
}

/** The live processes (zombies left out: they have exited, only their exit status is left). */
export function liveProcesses(): ProcessRow[] {
  const out = execFileSync("ps", ["-eo", "pid=,pgid=,stat=,args="], { encoding: "utf8" });
  const rows: ProcessRow[] = [];
  for (const line of out.split("\n")) {
    const m = /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line);
    if (m === null || m[3]!.startsWith("Z")) continue;
    rows.push({ pid: Number(m[1]), pgid: Number(m[2]), args: m[4]! });
  }
  return rows;
}

/** The live processes whose command line contains `text`. */
export function processesMentioning(text: string): ProcessRow[] {
  return liveProcesses().filter((p) => p.args.includes(text));
}

/** The live members of process group `pgid`. */
export function groupMembers(pgid: number): ProcessRow[] {
  return liveProcesses().filter((p) => p.pgid === pgid);
}

/**
 * Polls `probe` until it returns true or `attempts` polls (20 ms apart) have failed; returns its
 * last answer. For conditions another process brings about (a killed process disappearing).
 */
export async function eventually(probe: () => boolean, attempts = 250): Promise<boolean> {
  for (let i = 0; i < attempts; i++) {
    if (probe()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return probe();
}
