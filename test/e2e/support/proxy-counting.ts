/**
 * A counting HTTP proxy in front of the apiserver (real `node:http`, no fake): clients get a
 * kubeconfig pointing at the proxy, every request they send is forwarded to the apiserver and
 * recorded, so a test counts the writes that really reached the apiserver rather than what a client
 * wrapper or a log line says. Responses (watch streams included) are piped back unchanged.
 *
 * A test can also mute the watches of chosen resources (such a watch is answered 200 and then kept
 * open without a byte, as a watch whose events are lost would be), and hold the next matching request
 * until it says so (to change an object while a write to it is in flight).
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { Agent, request as httpsRequest } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";

/** One request that went through the proxy. */
export interface ProxiedRequest {
  readonly method: string;
  /** The path without the query. */
  readonly path: string;
  readonly query: URLSearchParams;
  /** The resource plural the path names (`applications`, `leases`, …), "" if none. */
  readonly resource: string;
  /** `plural/name[/subresource]`, or `plural` for a collection. */
  readonly target: string;
  /** The apiserver's status code, once the response started. */
  status?: number;
}

const WRITE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** `plural/name[/sub]` of an API path (`/api/v1/…` or `/apis/group/version/…`). */
export function targetOf(path: string): { resource: string; target: string } {
  const parts = path.split("/").filter((p) => p !== "");
  let rest = parts[0] === "api" ? parts.slice(2) : parts.slice(3);
  if (rest[0] === "namespaces" && rest.length > 2) rest = rest.slice(2);
  return { resource: rest[0] ?? "", target: rest.join("/") };
}

interface Upstream {
  readonly server: URL;
  readonly token: string;
}

function readUpstream(kubeconfigPath: string): Upstream {
  const kc = parseYaml(readFileSync(kubeconfigPath, "utf8")) as {
    clusters: Array<{ cluster: { server: string } }>;
    users: Array<{ user: { token: string } }>;
  };
  return { server: new URL(kc.clusters[0]!.cluster.server), token: kc.users[0]!.user.token };
}

/** A running counting proxy. */
export class CountingProxy {
  readonly requests: ProxiedRequest[] = [];
  private muted: (r: ProxiedRequest) => boolean = () => false;
  private gate: { when: (r: ProxiedRequest) => boolean; arrived: (r: ProxiedRequest) => void; released: Promise<void> } | undefined;
  private readonly agent = new Agent({ keepAlive: true, rejectUnauthorized: false });

  private constructor(
    private readonly server: Server,
    private readonly upstream: Upstream,
    /** A kubeconfig (same token) whose server is the proxy. */
    readonly kubeconfigPath: string,
  ) {}

  /** Starts a proxy on a free loopback port in front of the apiserver of `kubeconfigPath`. */
  static async start(kubeconfigPath: string): Promise<CountingProxy> {
    const upstream = readUpstream(kubeconfigPath);
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const path = join(mkdtempSync(join(tmpdir(), "appset-proxy-")), "kubeconfig");
    const yaml = readFileSync(kubeconfigPath, "utf8").replace(upstream.server.origin, `http://127.0.0.1:${String(port)}`);
    // client-node accepts a plain-HTTP server only with insecure-skip-tls-verify, which the shared
    // kubeconfig already sets.
    writeFileSync(path, yaml);
    const proxy = new CountingProxy(server, upstream, path);
    server.on("request", (req: IncomingMessage, res: ServerResponse) => proxy.forward(req, res));
    return proxy;
  }

  /** Watches of requests `when` accepts get no events from now on (until {@link unmute}). */
  mute(when: (r: ProxiedRequest) => boolean): void {
    this.muted = when;
  }

  unmute(): void {
    this.muted = () => false;
  }

  /**
   * Holds the next request `when` accepts before forwarding it: `arrived` resolves when it comes,
   * and it goes on to the apiserver once `release` is called.
   */
  holdNext(when: (r: ProxiedRequest) => boolean): { arrived: Promise<ProxiedRequest>; release: () => void } {
    let release = (): void => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    const arrived = new Promise<ProxiedRequest>((resolve) => (this.gate = { when, arrived: resolve, released }));
    return { arrived, release };
  }

  /** The writes (`METHOD plural/name[/sub]`) in order, optionally only those of some resources. */
  writes(...resourceNames: string[]): string[] {
    return this.requests
      .filter((r) => WRITE_METHODS.has(r.method) && (resourceNames.length === 0 || resourceNames.includes(r.resource)))
      .map((r) => `${r.method} ${r.target}`);
  }

  /** Forgets the requests recorded so far. */
  reset(): void {
    this.requests.length = 0;
  }

  /** Stops listening and drops every open connection (watches included). */
  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.agent.destroy();
  }

  private forward(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? "/", "http://proxy");
    const record: ProxiedRequest = { method: req.method ?? "GET", path: url.pathname, query: url.searchParams, ...targetOf(url.pathname) };
    this.requests.push(record);
    if (url.searchParams.get("watch") === "true" && this.muted(record)) {
      res.writeHead(200, { "content-type": "application/json" });
      res.flushHeaders();
      return;
    }
    const gate = this.gate;
    if (gate?.when(record) === true) {
      this.gate = undefined;
      gate.arrived(record);
      void gate.released.then(() => this.send(req, res, record));
      return;
    }
    this.send(req, res, record);
  }

  private send(req: IncomingMessage, res: ServerResponse, record: ProxiedRequest): void {
    const headers = { ...req.headers, host: this.upstream.server.host, authorization: `Bearer ${this.upstream.token}` };
    const up = httpsRequest(
      {
        hostname: this.upstream.server.hostname,
        port: this.upstream.server.port,
        path: req.url,
        method: req.method,
        headers,
        agent: this.agent,
      },
      (upRes) => {
        record.status = upRes.statusCode;
        res.writeHead(upRes.statusCode ?? 502, upRes.headers);
        upRes.pipe(res);
      },
    );
    up.on("error", () => res.destroy());
    res.on("close", () => {
      if (!res.writableFinished) up.destroy();
    });
    req.pipe(up);
  }
}
