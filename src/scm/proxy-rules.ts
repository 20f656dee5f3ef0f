/**
 * Which proxy an SCM request goes through (`--scm-proxy-url`, `--scm-no-proxy`); pure. The bypass
 * list follows Go's NO_PROXY rules, which Argo CD uses: `*` bypasses everything; an IP or CIDR
 * matches addresses; `example.com` matches the domain and its subdomains, `.example.com` (or
 * `*.example.com`) only subdomains; an entry with `:port` matches that port only; `localhost` and
 * loopback addresses are never proxied. The proxy URL takes the schemes Go's HTTP transport takes
 * (`http`, `https`, `socks5`, `socks5h`); one without a scheme is read as `http://`, as Go reads it.
 */
import { BlockList, isIP } from "node:net";
import { AppSetError } from "../errors.js";
import { hostnameOf } from "./transport.js";

/** The proxy settings of the controller process. */
export interface ProxySettings {
  /** `--scm-proxy-url`: `<scheme>://[user:pass@]host[:port]`, a bare `host:port` meaning http. */
  readonly url: string;
  /** `--scm-no-proxy`: comma-separated hosts, domains, IPs and CIDRs that go direct. */
  readonly noProxy: string;
  /**
   * Where the proxy URL was set, named in errors (default `--scm-proxy-url`): a Git repository's
   * `proxy` key, or the process's `HTTPS_PROXY`, for its GitHub App token exchange.
   */
  readonly setting?: string;
}

/** The schemes `--scm-proxy-url` accepts. */
export const SCM_PROXY_SCHEMES = ["http", "https", "socks5", "socks5h"] as const;

/** A proxy scheme `--scm-proxy-url` accepts. */
export type ProxyScheme = (typeof SCM_PROXY_SCHEMES)[number];

/** The setting a proxy URL comes from unless {@link ProxySettings.setting} says otherwise. */
const SCM_PROXY_SETTING = "--scm-proxy-url";

/** `--scm-proxy-url` names a scheme no proxy kind answers to; a request that would use it fails with this. */
export class UnsupportedProxySchemeError extends AppSetError {
  constructor(
    readonly scheme: string,
    setting = SCM_PROXY_SETTING,
  ) {
    const kind = setting === SCM_PROXY_SETTING ? "SCM proxy" : "proxy";
    super(
      "UnsupportedProxyScheme",
      `unsupported ${kind} scheme ${JSON.stringify(scheme)} in ${setting}: use one of ${SCM_PROXY_SCHEMES.map((s) => `${s}://`).join(", ")}`,
    );
  }
}

function isProxyScheme(s: string): s is ProxyScheme {
  return (SCM_PROXY_SCHEMES as readonly string[]).includes(s);
}

/**
 * The proxy URL of `--scm-proxy-url` (or of `setting`), a bare `host:port` read as http; throws
 * {@link UnsupportedProxySchemeError}.
 */
export function parseProxyUrl(raw: string, setting?: string): URL {
  const text = raw.trim();
  const url = new URL(text.includes("://") ? text : `http://${text}`);
  const scheme = url.protocol.replace(/:$/, "");
  if (!isProxyScheme(scheme)) throw new UnsupportedProxySchemeError(scheme, setting);
  return url;
}

/** The port a URL names, else its scheme's default (Go's canonical address). */
export function portOf(url: URL): string {
  if (url.port !== "") return url.port;
  return { "https:": "443", "socks5:": "1080", "socks5h:": "1080" }[url.protocol] ?? "80";
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

/** Whether `--scm-no-proxy` (or the loopback rule) sends a request to `target` direct. */
export function bypassesProxy(target: URL, noProxy: string): boolean {
  const host = hostnameOf(target).toLowerCase();
  if (loopback(host)) return true;
  const port = portOf(target);
  return noProxy
    .split(",")
    .map((e) => e.trim().toLowerCase())
    .filter((e) => e !== "")
    .some((e) => entryMatches(e, host, port));
}

/**
 * The proxy a request to `target` goes through, or undefined when it goes direct. A bypassed
 * target never looks at the proxy URL, so a bad scheme fails only the requests that would use it.
 */
export function proxyFor(target: URL, settings: ProxySettings): URL | undefined {
  if (settings.url.trim() === "" || bypassesProxy(target, settings.noProxy)) return undefined;
  return parseProxyUrl(settings.url, settings.setting);
}
