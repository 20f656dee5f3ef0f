/**
 * `--scm-proxy-url` / `--scm-no-proxy` (or a Git repository's `proxy`/`noProxy`, for its GitHub App
 * token exchange) as a {@link Transport}. A request that {@link proxyFor} sends
 * through the proxy gets a proxy agent of its own (no proxy connection is reused):
 * - `http://` and `https://` proxies (`https://`: TLS to the proxy itself): plain-HTTP targets in
 *   absolute form (http-proxy-agent), HTTPS targets through a `CONNECT` tunnel with TLS end to end
 *   (https-proxy-agent);
 * - `socks5://` and `socks5h://` proxies (socks-proxy-agent): a SOCKS5 tunnel. Both hand the host
 *   name to the proxy, which resolves it, as Go's transport does for Argo CD.
 * The request's TLS settings (the `--scm-root-ca-path` roots, a provider's `caRef`, `insecure`)
 * apply to the provider's certificate and to an `https://` proxy's alike, as Go's single tls.Config
 * does. Credentials in the proxy URL go to the proxy only (`Proxy-Authorization`, or SOCKS5
 * username/password). The connect limit covers the proxy connection, the tunnel and the TLS
 * handshake with the provider. The proxy agents' modules load on the first proxied request
 * (docs/controller.md#memory-at-start).
 */
import type { Agent, ClientRequest } from "node:http";
import { nodeHttp } from "../node-http.js";
import { request as httpsRequest } from "node:https";
import { isIPv6, type Socket } from "node:net";
import { TLSSocket } from "node:tls";
import { AppSetError } from "../errors.js";
import { portOf, proxyFor, type ProxySettings } from "./proxy-rules.js";
import { ScmTimeoutError } from "./timeouts.js";
import { directOptions, exchange, hostnameOf, nodeTransport, tlsSettings, type Transport, type TransportRequest } from "./transport.js";

/** The proxy answered a `CONNECT` with something other than 200. */
export class ScmProxyRefusedError extends AppSetError {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super("ScmProxyRefused", message);
  }
}

/** `host:port` of a target as a `CONNECT` line names it. */
function authorityOf(target: URL): string {
  const host = hostnameOf(target);
  return `${isIPv6(host) ? `[${host}]` : host}:${portOf(target)}`;
}

/**
 * The agent that reaches `target` through `proxy`. For an HTTP(S) proxy, `signal` closes the proxy
 * connection while it is being set up; the SOCKS client gives up a stalled handshake by itself
 * (after 30 s). The provider's TLS settings travel with the request's options.
 */
async function agentFor(proxy: URL, target: URL, o: { req: TransportRequest; signal: AbortSignal }): Promise<Agent> {
  if (proxy.protocol === "socks5:" || proxy.protocol === "socks5h:") {
    const { SocksProxyAgent } = await import("socks-proxy-agent");
    const remote = new URL(proxy.href);
    remote.protocol = "socks5h:";
    return new SocksProxyAgent(remote);
  }
  const options = { ...tlsSettings(o.req.tls), signal: o.signal };
  if (target.protocol === "https:") return new (await import("https-proxy-agent")).HttpsProxyAgent(proxy, options);
  return new (await import("http-proxy-agent")).HttpProxyAgent(proxy, options);
}

/** Whether a socket handed to a request still has its TLS handshake ahead. */
function handshaking(socket: Socket): boolean {
  return socket instanceof TLSSocket && (socket as TLSSocket & { secureConnecting?: boolean }).secureConnecting === true;
}

/**
 * Fails the request with a connect {@link ScmTimeoutError} unless its proxied connection is ready
 * (the tunnel open and, for TLS, past the provider's handshake) within the connect limit, and with
 * {@link ScmProxyRefusedError} when the proxy refuses the `CONNECT`. It fails through `reject`,
 * so no later error of the aborted connection replaces the cause, and aborts `setup`, which
 * closes the proxy connection if it is still being opened.
 */
function guardSetup(
  r: ClientRequest,
  reject: (err: Error) => void,
  o: { req: TransportRequest; proxy: URL; target: URL; setup: AbortController; setting: string | undefined },
): void {
  const fail = (err: Error): void => {
    reject(err);
    r.destroy(err);
    o.setup.abort(err);
  };
  const ms = o.req.connectTimeoutMs;
  const limit = ms === undefined ? undefined : AbortSignal.timeout(ms);
  const onTimeout = (): void => fail(new ScmTimeoutError({ phase: "connect", url: o.req.url, limitMs: ms ?? 0 }));
  limit?.addEventListener("abort", onTimeout, { once: true });
  const disarm = (): void => limit?.removeEventListener("abort", onTimeout);
  r.once("close", disarm);
  r.once("socket", (socket: Socket) => {
    if (handshaking(socket)) socket.once("secureConnect", disarm);
    else disarm();
  });
  r.once("proxyConnect", (answer: { statusCode?: number; statusText?: string }) => {
    if (answer.statusCode === undefined || answer.statusCode === 200) return;
    const status = `${String(answer.statusCode)} ${answer.statusText ?? ""}`.trim();
    const named = o.setting === undefined ? `SCM proxy ${o.proxy.host}` : `proxy ${o.proxy.host} (${o.setting})`;
    fail(new ScmProxyRefusedError(answer.statusCode, `${named} refused CONNECT ${authorityOf(o.target)}: ${status}`));
  });
}

async function viaProxy(req: TransportRequest, target: URL, proxy: URL, setting: string | undefined): ReturnType<Transport> {
  const setup = new AbortController();
  const signal = req.signal === undefined ? setup.signal : AbortSignal.any([req.signal, setup.signal]);
  const options = { ...directOptions(target, req.tls), agent: await agentFor(proxy, target, { req, signal }) };
  const send = target.protocol === "https:" ? httpsRequest : nodeHttp.request;
  return exchange(req, options, send, (r, reject) => guardSetup(r, reject, { req, proxy, target, setup, setting }));
}

/** A transport that honours the proxy settings, sending the rest through `direct`. */
export function proxyTransport(settings: ProxySettings, direct: Transport = nodeTransport): Transport {
  return async (req) => {
    const target = new URL(req.url);
    const proxy = proxyFor(target, settings);
    return proxy === undefined ? direct(req) : viaProxy(req, target, proxy, settings.setting);
  };
}
