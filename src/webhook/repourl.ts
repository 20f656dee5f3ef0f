/**
 * Repository URL comparison. Argo CD matches a Git generator's `repoURL` against a regular
 * expression built from the pushed repository's web URL; this module compares normalised forms
 * instead (host and path, lower case, without scheme, user, port, `ssh.`/`altssh.` prefix or
 * `.git`), so `https://github.com/o/r`, `git@github.com:o/r.git` and `ssh://git@github.com:22/o/r`
 * are one repository. This is looser on purpose than Argo CD's `NormalizeGitURL` (`src/git/url.ts`),
 * which keeps the scheme, user and port: a push names the repository by its web URL, and a
 * generator may name it by any of its clone URLs. A value holding a template (`{{ .url }}`, set
 * by a Matrix sibling) matches whatever its literal parts allow: the event may be the one that
 * changes it.
 */
import { trimTrailingSlashes } from "../trim.js";

/** Whether a generator field is rendered from a Matrix sibling's parameters. */
export function isTemplated(value: string): boolean {
  return value.includes("{{") || value.includes("}}");
}

const HOLE = "\u0000";

/**
 * Where a repository URL points, as `host/path` in lower case, whatever its scheme, user, port,
 * `ssh.`/`altssh.` host prefix or `.git`; undefined when it has no host and path.
 */
export function repoHostPath(url: string): string | undefined {
  const lower = url.trim().toLowerCase();
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//.exec(lower);
  const s = lower.slice(scheme?.[0].length ?? 0).replace(/^[^@/]*@/, "");
  // with a scheme, `host:123/` is a port; without one (scp-like `host:path`), the colon starts the path
  const m = (scheme === null ? /^([^/:]+)[:/](.+)$/ : /^([^/:]+)(?::\d*)?\/(.+)$/).exec(s);
  if (m === null) return undefined;
  const host = m[1]!.replace(/^(ssh|altssh)\./, "");
  const path = trimTrailingSlashes(m[2]!)
    .replace(/\.git$/, "")
    .replace(/^\/+/, "");
  return path === "" ? undefined : `${host}/${path}`;
}

/**
 * Whether all of `text` is the literal `parts` in order with any text between them (where the
 * holes were): what `^p0.*p1.*…pn$` (dotall) asks, answered in linear time by taking each middle
 * part at its leftmost place, which is the best place when every gap takes any text.
 */
function holeMatches(parts: readonly string[], text: string): boolean {
  const first = parts[0]!;
  if (parts.length === 1) return text === first;
  const last = parts[parts.length - 1]!;
  const end = text.length - last.length;
  if (end < first.length || !text.startsWith(first) || !text.endsWith(last)) return false;
  let at = first.length;
  for (const part of parts.slice(1, -1)) {
    const found = text.indexOf(part, at);
    if (found < 0 || found + part.length > end) return false;
    at = found + part.length;
  }
  return true;
}

/** The test of a whole text against a holed value (see {@link holeMatches}). */
function holePattern(holed: string): (text: string) => boolean {
  const parts = holed.split(HOLE);
  return (text) => holeMatches(parts, text);
}

/** Whether the UTF-16 unit is a line terminator (what `.` does not match). */
function isLineEnd(code: number): boolean {
  return code === 0x0a || code === 0x0d || code === 0x2028 || code === 0x2029;
}

/**
 * `value` with each `{{…}}` on one line replaced by {@link HOLE}: what
 * `value.replace(/\{\{.*?\}\}/g, HOLE)` does, in one pass (the RegExp retries from every `{{`
 * and reads to the end of the line each time, quadratic in a run of `{{`).
 */
export function holeTemplates(value: string): string {
  // nextClose[i]: where the first `}}` at or after i starts (-1: none); nextEnd[i]: the first line end at or after i
  const n = value.length;
  const nextClose = new Int32Array(n + 2).fill(-1);
  const nextEnd = new Int32Array(n + 2).fill(n);
  for (let i = n - 1; i >= 0; i--) {
    const c = value.charCodeAt(i);
    nextClose[i] = c === 0x7d && value.charCodeAt(i + 1) === 0x7d ? i : nextClose[i + 1]!;
    nextEnd[i] = isLineEnd(c) ? i : nextEnd[i + 1]!;
  }
  const out: string[] = [];
  let from = 0;
  for (let i = 0; i < n - 1; i++) {
    if (value.charCodeAt(i) !== 0x7b || value.charCodeAt(i + 1) !== 0x7b) continue;
    const close = nextClose[i + 2]!;
    if (close < 0 || nextEnd[i + 2]! < close) continue;
    out.push(value.slice(from, i), HOLE);
    from = close + 2;
    i = close + 1;
  }
  out.push(value.slice(from));
  return out.join("");
}

/**
 * A test for one generator value against a URL: equal normalised forms, or, when templated, the
 * literal parts matching either the normalised or the raw URL (templates match any text).
 */
function urlTest(value: string): (url: string) => boolean {
  if (!isTemplated(value)) {
    const n = repoHostPath(value);
    return (u) => n !== undefined && repoHostPath(u) === n;
  }
  const holed = holeTemplates(value).toLowerCase();
  const normalized = repoHostPath(holed);
  const raw = holePattern(holed);
  const norm = normalized === undefined ? undefined : holePattern(normalized);
  return (u) => raw(u.trim().toLowerCase()) || (norm !== undefined && norm(repoHostPath(u) ?? ""));
}

/** Whether `repoURL` (a generator's, possibly templated) names one of `urls`. */
export function repoURLMatches(repoURL: string, urls: readonly string[]): boolean {
  const test = urlTest(repoURL);
  return urls.some(test);
}

/** Case-insensitive equality, where a templated generator value matches anything. */
export function sameName(generatorValue: string | undefined, eventValue: string | undefined): boolean {
  if (generatorValue === undefined || eventValue === undefined) return false;
  if (isTemplated(generatorValue)) return true;
  return generatorValue.toLowerCase() === eventValue.toLowerCase();
}

/** The lower-case host name of a URL, or undefined when it does not parse. */
export function hostOf(url: string): string | undefined {
  try {
    const h = new URL(url).hostname.toLowerCase();
    return h === "" ? undefined : h;
  } catch {
    return undefined;
  }
}

/**
 * Whether a generator's API URL (or its default) serves the event's repository: same host, or the
 * `api.` host of the web host (`api.github.com` for `github.com`, `api.bitbucket.org` for
 * `bitbucket.org`). An event that names no host matches any API; a templated API matches anything.
 */
export function apiServes(api: string, hosts: readonly string[]): boolean {
  if (hosts.length === 0 || isTemplated(api)) return true;
  const h = hostOf(api);
  return h !== undefined && hosts.some((e) => h === e || h === `api.${e}`);
}

/** Argo CD's `ParseRevision`: a `refs/…` name without its first two segments. */
export function stripRef(ref: string): string {
  return ref.startsWith("refs/") ? ref.split("/").slice(2).join("/") : ref;
}

/** A pushed ref from its full name and the default branch (`undefined` when the payload lacks it). */
export function pushedRef(
  ref: string,
  defaultBranch: string | undefined,
): { revision: string; tag: boolean; touchedHead: boolean | undefined } {
  const revision = stripRef(ref);
  const tag = ref.startsWith("refs/tags/");
  const head = defaultBranch === undefined || defaultBranch === "" ? undefined : stripRef(defaultBranch);
  return { revision, tag, touchedHead: tag ? false : head === undefined ? undefined : head === revision };
}

/** The distinct lower-case hosts of some URLs (ssh and scp-like ones included). */
export function hostsOf(urls: readonly string[]): string[] {
  const out = new Set<string>();
  for (const u of urls) {
    const n = repoHostPath(u);
    if (n !== undefined) out.add(n.slice(0, n.indexOf("/")));
  }
  return [...out];
}
