/**
 * `--scm-proxy-url` / `--scm-no-proxy`: a {@link Transport} that sends SCM provider requests through
 * an HTTP proxy: plain-HTTP requests in absolute form (`GET http://host/path`), HTTPS ones through
 * a `CONNECT host:port` tunnel with TLS end to end. The bypass list follows Go's NO_PROXY rules,
 * which Argo CD uses: `*` bypasses everything; an IP or CIDR matches addresses; `example.com`
 * matches the domain and its subdomains, `.example.com` (or `*.example.com`) only subdomains; an
 * entry with `:port` matches that port only; `localhost` and loopback addresses are never proxied.
 */
import { request as httpRequest, type RequestOptions } from "node:http";
import { request as httpsRequest } from "node:https";
import { BlockList, isIP, type Socket } from "node:net";
import { connect as tlsConnect, type TLSSocket } from "node:tls";
import { ScmTimeoutError } from "./timeouts.js";
import {
  directOptions,
  exchange,
  hostnameOf,
  nodeTransport,
  tlsSettings,
  type Transport,
  type TransportRequest,
  type TransportResponse,
} from "./transport.js";

/** The proxy settings of the controller process. */
export interface ProxySettings {
  /** `--scm-proxy-url` (`http://[user:pass@]host:port`; a bare `host:port` means http). */
  readonly url: string;
  /** `--scm-no-proxy`: comma-separated hosts, domains, IPs and CIDRs that go direct. */
  readonly noProxy: string;
}

function defaultPort(url: URL): string {
  return url.port !== "" ? url.port : url.protocol === "https:" ? "443" : "80";
}

function loopback(host: string): boolean {
  if (host === "localhost") return true;
  const v = isIP(host);
  return (v === 4 && host.startsWith("127.")) || (v === 6 && (host === "::1" || host === "0:0:0:0:0:0:0:1"));
}

function inCidr(cidr: string, host: string): boolean {
  const [net = "", bits = ""] = cidr.split("/");
  if (isIP(host) === 0 || isIP(net) === 0) return false;
  const list = new BlockList();
  list.addSubnet(net, Number(bits), isIP(net) === 6 ? "ipv6" : "ipv4");
  return list.check(host, isIP(host) === 6 ? "ipv6" : "ipv4");
}

function entryMatches(entry: string, host: string, port: string): boolean {
  if (entry === "*") return true;
  if (entry.includes("/")) return inCidr(entry, host);
  const bare = entry.replace(/^\[|\]$/g, "");
  if (isIP(bare) !== 0) return bare === host;
  const m = /^(.*?)(?::(\d+))?$/.exec(entry);
  let domain = m?.[1] ?? entry;
  const wantPort = m?.[2];
  if (wantPort !== undefined && wantPort !== port) return false;
  if (domain.startsWith("*.")) domain = domain.slice(1);
  if (domain.startsWith(".")) return host.endsWith(domain);
  return host === domain || host.endsWith(`.${domain}`);
}

/** The proxy a request to `target` goes through, or undefined when it goes direct. */
export function proxyFor(target: URL, settings: ProxySettings): URL | undefined {
  if (settings.url.trim() === "") return undefined;
  const host = hostnameOf(target).toLowerCase();
  if (loopback(host)) return undefined;
  const port = defaultPort(target);
  const entries = settings.noProxy
    .split(",")
    .map((e) => e.trim().toLowerCase())
    .filter((e) => e !== "");
  if (entries.some((e) => entryMatches(e, host, port))) return undefined;
  const raw = settings.url.trim();
  return new URL(raw.includes("://") ? raw : `http://${raw}`);
}

function proxyAuth(proxy: URL): Record<string, string> {
  if (proxy.username === "") return {};
  const cred = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
  return { "Proxy-Authorization": `Basic ${Buffer.from(cred, "utf8").toString("base64")}` };
}

function proxyEndpoint(proxy: URL): RequestOptions {
  if (proxy.protocol !== "http:")
    throw new Error(`unsupported SCM proxy scheme ${proxy.protocol.replace(/:$/, "")}: only http proxies are supported`);
  return { hostname: hostnameOf(proxy), port: defaultPort(proxy) };
}

/**
 * Opens a `CONNECT` tunnel to `target` and resolves with its socket. `signal` aborts the setup
 * only: once the tunnel is open it no longer touches the socket.
 */
function tunnel(proxy: URL, target: URL, signal: AbortSignal): Promise<Socket> {
  const authority = `${hostnameOf(target).includes(":") ? `[${hostnameOf(target)}]` : hostnameOf(target)}:${defaultPort(target)}`;
  return new Promise<Socket>((resolve, reject) => {
    const r = httpRequest({
      ...proxyEndpoint(proxy),
      method: "CONNECT",
      path: authority,
      headers: { Host: authority, ...proxyAuth(proxy) },
    });
    const onAbort = (): void => void r.destroy(signal.reason instanceof Error ? signal.reason : new Error("aborted"));
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    r.on("close", () => signal.removeEventListener("abort", onAbort));
    r.on("connect", (res, socket) => {
      signal.removeEventListener("abort", onAbort);
      if (res.statusCode === 200) resolve(socket);
      else {
        socket.destroy();
        reject(
          new Error(`SCM proxy ${proxy.host} refused CONNECT ${authority}: ${String(res.statusCode)} ${res.statusMessage ?? ""}`.trim()),
        );
      }
    });
    r.on("error", reject);
    r.end();
  });
}

/** Resolves once `secure` has finished its handshake; rejects on a TLS error or when `signal` aborts. */
function handshake(secure: TLSSocket, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => void secure.destroy(signal.reason instanceof Error ? signal.reason : new Error("aborted"));
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    secure.once("secureConnect", () => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    });
    secure.once("error", (err: Error) => {
      signal.removeEventListener("abort", onAbort);
      reject(err);
    });
  });
}

/**
 * The TLS connection to `target` through a `CONNECT` tunnel. The connect limit covers the
 * connection to the proxy, its answer and the TLS handshake over the tunnel.
 */
async function secureTunnel(req: TransportRequest, target: URL, proxy: URL): Promise<TLSSocket> {
  const limit = req.connectTimeoutMs === undefined ? undefined : AbortSignal.timeout(req.connectTimeoutMs);
  const signals = [req.signal, limit].filter((s): s is AbortSignal => s !== undefined);
  const signal = AbortSignal.any(signals);
  try {
    const socket = await tunnel(proxy, target, signal);
    const host = hostnameOf(target);
    const secure = tlsConnect({ socket, ...(isIP(host) === 0 ? { servername: host } : {}), ...tlsSettings(req.tls) });
    await handshake(secure, signal);
    return secure;
  } catch (err) {
    if (limit?.aborted === true && req.signal?.aborted !== true)
      throw new ScmTimeoutError({ phase: "connect", url: req.url, limitMs: req.connectTimeoutMs ?? 0 });
    throw err;
  }
}

async function viaProxy(req: TransportRequest, target: URL, proxy: URL): Promise<TransportResponse> {
  if (target.protocol === "http:") {
    const options: RequestOptions = { ...proxyEndpoint(proxy), path: target.href, headers: { Host: target.host, ...proxyAuth(proxy) } };
    return exchange(req, options, httpRequest);
  }
  const secure = await secureTunnel(req, target, proxy);
  const options = { ...directOptions(target, req.tls), createConnection: () => secure };
  return exchange(req, options, httpsRequest);
}

/** A transport that honours the proxy settings, sending the rest through `direct`. */
export function proxyTransport(settings: ProxySettings, direct: Transport = nodeTransport): Transport {
  return (req) => {
    const target = new URL(req.url);
    const proxy = proxyFor(target, settings);
    return proxy === undefined ? direct(req) : viaProxy(req, target, proxy);
  };
}
