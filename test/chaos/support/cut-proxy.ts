/**
 * A loopback TCP proxy in front of the apiserver that can cut every connection through it at once,
 * as a flaky network or a load balancer's reset does (a real `node:net` server; TLS passes through
 * untouched, so the client still talks to the real apiserver). Clients get a kubeconfig pointing at
 * the proxy.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { createConnection, createServer, type AddressInfo, type Server, type Socket } from "node:net";
import { join } from "node:path";

/** A running proxy: its kubeconfig, how many connections it cut, and how to cut them. */
export interface CutProxy {
  readonly kubeconfigPath: string;
  /** Connections cut so far. */
  readonly cuts: () => number;
  /** Destroys every open connection (both sides); returns how many there were. */
  cutAll(): number;
  close(): Promise<void>;
}

/** Starts a proxy to the apiserver of `kubeconfigPath`; its own kubeconfig is written into `dir`. */
export async function startCutProxy(kubeconfigPath: string, dir: string): Promise<CutProxy> {
  const original = readFileSync(kubeconfigPath, "utf8");
  const server = /server: (https:\/\/[^\s]+)/.exec(original)?.[1];
  if (server === undefined) throw new Error(`no server in ${kubeconfigPath}`);
  const target = new URL(server);
  const open = new Set<[Socket, Socket]>();
  let cut = 0;
  const proxy: Server = createServer((downstream) => {
    const upstream = createConnection({ host: target.hostname, port: Number(target.port) });
    const pair: [Socket, Socket] = [downstream, upstream];
    open.add(pair);
    const drop = (): void => {
      open.delete(pair);
      downstream.destroy();
      upstream.destroy();
    };
    downstream.on("error", drop).on("close", drop);
    upstream.on("error", drop).on("close", drop);
    downstream.pipe(upstream);
    upstream.pipe(downstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const port = (proxy.address() as AddressInfo).port;
  const path = join(dir, "kubeconfig-cut-proxy");
  writeFileSync(path, original.replace(server, `https://127.0.0.1:${String(port)}`));
  return {
    kubeconfigPath: path,
    cuts: () => cut,
    cutAll: () => {
      const n = open.size;
      for (const [a, b] of [...open]) {
        a.destroy();
        b.destroy();
      }
      open.clear();
      cut += n;
      return n;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const [a, b] of open) {
          a.destroy();
          b.destroy();
        }
        proxy.close(() => resolve());
      }),
  };
}
