/**
 * Argo CD's rule for "the same Git repository" (`NormalizeGitURL`, `NormalizeGitURLAllowInvalid`
 * and `SameURL` of its `util/git`): lower case and trimmed; an scp-like `user@host:path` becomes
 * `user@host/path`; one trailing `.git` goes; the rest is read and written back the way Go's
 * `net/url` does (so `https://host/a b` and `https://host/a%20b` are one URL), and an `ssh://`
 * prefix goes. The scheme, the user, the port and a trailing `/` stay: `https://host/o/r` and
 * `git@host:o/r` are two repositories, as in Argo CD. A URL Go cannot parse normalises to "".
 *
 * Used for repository Secrets (`src/git/credentials.ts`) and the `repo` label of `argocd_app_info`.
 * The webhook matches pushed repositories by a looser rule of its own (`src/webhook/repourl.ts`).
 * Pure.
 */
import { isAbsolute } from "node:path";

/** Argo CD's `IsSSHURL`: an optional `ssh://`, then a user, `@` and the rest. */
const SSH_URL = /^(ssh:\/\/)?([^/:]*?)@[^@]+$/;

/** Argo CD's `NormalizeGitURL`: the comparable form of a repository URL, "" when it does not parse. */
export function normalizeGitURL(repo: string): string {
  let url = repo.trim().toLowerCase();
  if (SSH_URL.test(url) && !url.startsWith("ssh://")) url = `ssh://${url.replace(":", "/")}`;
  if (url.endsWith(".git")) url = url.slice(0, -".git".length);
  const text = goURLString(url);
  if (text === undefined) return "";
  return text.startsWith("ssh://") ? text.slice("ssh://".length) : text;
}

/** Argo CD's `NormalizeGitURLAllowInvalid`: {@link normalizeGitURL}, or the URL as given when it does not parse. */
export function normalizeGitURLAllowInvalid(repo: string): string {
  const normalized = normalizeGitURL(repo);
  return normalized === "" ? repo : normalized;
}

/** Argo CD's `SameURL`: both URLs non-empty and equal once normalised. */
export function sameGitURL(a: string, b: string): boolean {
  const left = normalizeGitURLAllowInvalid(a);
  const right = normalizeGitURLAllowInvalid(b);
  return left !== "" && right !== "" && left === right;
}

// --- Go's url.Parse followed by URL.String, for what repository URLs hold ---

type Part = "path" | "userinfo" | "fragment" | "host";

const HEX = "0123456789ABCDEF";
const bytesOf = (s: string): Uint8Array => new TextEncoder().encode(s);

function isAlnum(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

/** Go's `shouldEscape`: whether a byte of this part of a URL is written percent-encoded. */
function shouldEscape(c: number, part: Part): boolean {
  if (isAlnum(c)) return false;
  const ch = String.fromCharCode(c);
  if (part === "host" && `!$&'()*+,;=:[]<>"`.includes(ch)) return false;
  if ("-_.~".includes(ch)) return false;
  if ("$&+,/:;=?@".includes(ch)) {
    if (part === "path") return ch === "?";
    if (part === "userinfo") return "@/?:".includes(ch);
    if (part === "fragment") return false;
  }
  return !(part === "fragment" && "!()*".includes(ch));
}

/** Go's `unescape`: the bytes a part stands for, or undefined for a malformed `%` escape or host byte. */
function unescape(s: string, part: Part): Uint8Array | undefined {
  const raw = bytesOf(s);
  const out: number[] = [];
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c === 0x25) {
      const hex = s.slice(i + 1, i + 3);
      if (!/^[0-9a-fA-F]{2}$/.test(hex)) return undefined;
      if (part === "host" && parseInt(hex[0]!, 16) < 8 && hex !== "25") return undefined;
      out.push(parseInt(hex, 16));
      i += 2;
    } else {
      if (part === "host" && c < 0x80 && shouldEscape(c, part)) return undefined;
      out.push(c);
    }
  }
  return Uint8Array.from(out);
}

function escape(bytes: Uint8Array, part: Part): string {
  let out = "";
  for (const c of bytes) out += shouldEscape(c, part) ? `%${HEX[c >> 4]!}${HEX[c & 15]!}` : String.fromCharCode(c);
  return out;
}

/** Go's `validEncoded`: text that `EscapedPath`/`EscapedFragment` may return as it was written. */
function validEncoded(s: string, part: Part): boolean {
  return [...bytesOf(s)].every((c) => `!$&'()*+,;=:@[]%`.includes(String.fromCharCode(c)) || !shouldEscape(c, part));
}

/** A path or fragment as Go writes it back: as written when validly encoded, else re-encoded. */
function rewritten(s: string, part: Part): string | undefined {
  const bytes = unescape(s, part);
  if (bytes === undefined) return undefined;
  return validEncoded(s, part) ? s : escape(bytes, part);
}

/** The userinfo of an authority as Go writes it back (with its `@`), or undefined when it is malformed. */
function userinfoString(info: string): string | undefined {
  if (!/^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(info)) return undefined;
  const colon = info.indexOf(":");
  const names = colon < 0 ? [info] : [info.slice(0, colon), info.slice(colon + 1)];
  const decoded = names.map((n) => unescape(n, "userinfo"));
  if (decoded.some((d) => d === undefined)) return undefined;
  return `${decoded.map((d) => escape(d!, "userinfo")).join(":")}@`;
}

/** A host with its optional port (`[...]` for IPv6) as Go writes it back, or undefined when malformed. */
function hostString(host: string): string | undefined {
  const bracketed = host.startsWith("[");
  const close = bracketed ? host.lastIndexOf("]") : -1;
  if (bracketed && close < 0) return undefined;
  const portAt = bracketed ? close + 1 : host.lastIndexOf(":");
  const port = portAt < 0 ? "" : host.slice(portAt);
  if (port !== "" && !/^:\d*$/.test(port)) return undefined;
  const bytes = unescape(host, "host");
  return bytes === undefined ? undefined : escape(bytes, "host");
}

/** Go's `parseAuthority` and the authority half of `URL.String`. */
function authorityString(authority: string): string | undefined {
  const at = authority.lastIndexOf("@");
  const user = at < 0 ? "" : userinfoString(authority.slice(0, at));
  const host = hostString(authority.slice(at + 1));
  return user === undefined || host === undefined ? undefined : user + host;
}

/** What Go's `url.Parse(raw).String()` gives, or undefined where `url.Parse` fails. */
function goURLString(raw: string): string | undefined {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(raw)) return undefined;
  const hash = raw.indexOf("#");
  const fragment = hash < 0 ? "" : rewritten(raw.slice(hash + 1), "fragment");
  if (fragment === undefined) return undefined;
  const beforeHash = hash < 0 ? raw : raw.slice(0, hash);
  const question = beforeHash.indexOf("?");
  const query = question < 0 ? "" : beforeHash.slice(question);
  const main = mainString(question < 0 ? beforeHash : beforeHash.slice(0, question));
  if (main === undefined) return undefined;
  return main + query + (fragment === "" ? "" : `#${fragment}`);
}

/** `//authority/path` as Go writes it back, or undefined when either part is malformed. */
function withAuthority(rest: string): string | undefined {
  const slash = rest.indexOf("/", 2);
  const authority = authorityString(slash < 0 ? rest.slice(2) : rest.slice(2, slash));
  const path = rewritten(slash < 0 ? "" : rest.slice(slash), "path");
  if (authority === undefined || path === undefined) return undefined;
  return (authority !== "" || path !== "" ? "//" : "") + authority + path;
}

/** Scheme, authority and path of Go's `parse`, written back as `URL.String` writes them. */
function mainString(s: string): string | undefined {
  if (s.startsWith(":")) return undefined;
  const scheme = /^[a-z][a-z0-9+.-]*:/.exec(s)?.[0] ?? "";
  const rest = s.slice(scheme.length);
  if (!rest.startsWith("/")) {
    // with a scheme, an opaque URL (`mailto:x`) as written; without one, no colon in the first segment
    if (scheme !== "") return s;
    if ((rest.split("/")[0] ?? "").includes(":")) return undefined;
  }
  const tail = rest.startsWith("//") && (scheme !== "" || !rest.startsWith("///")) ? withAuthority(rest) : rewritten(rest, "path");
  return tail === undefined ? undefined : scheme + tail;
}

/**
 * Whether git reads `repoURL` as a path relative to its working directory: not a `scheme://` URL,
 * not absolute, and not scp-like (`host:path`, a colon before any slash).
 */
export function isRelativeLocalPath(repoURL: string): boolean {
  if (repoURL === "" || isAbsolute(repoURL) || /^[a-z][a-z0-9+.-]*:\/\//i.test(repoURL)) return false;
  const colon = repoURL.indexOf(":");
  const slash = repoURL.indexOf("/");
  return colon < 0 || (slash >= 0 && slash < colon);
}

/**
 * Whether git reads `repoURL` from this machine's disk: a `file://` URL, an absolute path, or a
 * relative one ({@link isRelativeLocalPath}). Blank is not a URL at all.
 */
export function isLocalRepositoryURL(repoURL: string): boolean {
  const url = repoURL.trim();
  if (url === "") return false;
  return /^file:/i.test(url) || isAbsolute(url) || isRelativeLocalPath(url);
}

/**
 * The scheme and host (with its port) a repository URL reaches, in lower case: `https://h:8443`,
 * `ssh://h` for both `ssh://git@h/o/r` and scp-like `git@h:o/r`; undefined for a local path or
 * anything that does not parse.
 */
export function gitOrigin(repoURL: string): string | undefined {
  const url = repoURL.trim();
  if (url === "" || isLocalRepositoryURL(url)) return undefined;
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url);
  if (scheme === null) {
    const scp = /^(?:[^@/:]*@)?([^/:]+):/.exec(url);
    return scp === null ? undefined : `ssh://${scp[1]!.toLowerCase()}`;
  }
  const name = scheme[1]!.toLowerCase();
  const rest = url.slice(scheme[0].length);
  const authority = rest.split("/")[0]!;
  const host = authority.slice(authority.lastIndexOf("@") + 1).toLowerCase();
  if (host === "") return undefined;
  return `${name === "git+ssh" || name === "ssh+git" ? "ssh" : name}://${host}`;
}

/** Whether two repository URLs reach the same scheme and host ({@link gitOrigin}). */
export function sameGitOrigin(a: string, b: string): boolean {
  const left = gitOrigin(a);
  return left !== undefined && left === gitOrigin(b);
}
