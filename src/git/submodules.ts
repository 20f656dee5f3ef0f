/**
 * Submodules, as a checkout with `git submodule update --init --recursive` would have them: the
 * `.gitmodules` file of a commit (which path comes from which URL) and the URL a relative
 * submodule URL names (relative to the superproject's URL, as git resolves it). Pure.
 */
import { posix, resolve } from "node:path";
import type { TreeEntry } from "./git-output.js";
import { trimTrailingSlashes } from "../trim.js";

/** Path → URL of every submodule `.gitmodules` declares. */
export function parseGitmodules(text: string): Map<string, string> {
  const out = new Map<string, string>();
  let current: { path?: string; url?: string } | undefined;
  const flush = (): void => {
    if (current?.path !== undefined && current.url !== undefined) out.set(trimTrailingSlashes(current.path), current.url);
  };
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    if (line.startsWith("[")) {
      flush();
      current = /^\[submodule\s+"[^"]*"\]$/.test(line) ? {} : undefined;
      continue;
    }
    const m = /^([A-Za-z][A-Za-z0-9-]*)\s*=\s*(.*)$/.exec(line);
    if (current === undefined || m === null) continue;
    const key = m[1]!.toLowerCase();
    const value = unquote(m[2]!);
    if (key === "path") current.path = value;
    else if (key === "url") current.url = value;
  }
  flush();
  return out;
}

function unquote(v: string): string {
  return v.length >= 2 && v.startsWith('"') && v.endsWith('"') ? v.slice(1, -1) : v;
}

/**
 * The URL of a submodule: absolute URLs as they are; `./x` and `../x` relative to the
 * superproject's URL (`https://h/org/app.git` + `../lib.git` → `https://h/org/lib.git`), for
 * scheme URLs, scp-like `host:path` URLs and local paths alike.
 */
export function resolveSubmoduleURL(superURL: string, url: string): string {
  if (!url.startsWith("./") && !url.startsWith("../")) return url;
  const base = trimTrailingSlashes(superURL);
  const scheme = /^[a-z][a-z0-9+.-]*:\/\/[^/]*/i.exec(base);
  if (scheme !== null) return scheme[0] + posix.join(base.slice(scheme[0].length) || "/", url);
  const scp = /^([^/:]+:)(.*)$/.exec(base);
  if (scp !== null) return scp[1]! + posix.join(scp[2]!, url);
  return resolve(base, url);
}

/** Entries from submodules, grouped by the repository and commit they come from. */
export function groupByOrigin(entries: readonly TreeEntry[]): { repoURL: string; commit: string; entries: TreeEntry[] }[] {
  const out = new Map<string, { repoURL: string; commit: string; entries: TreeEntry[] }>();
  for (const e of entries) {
    const { repoURL, commit } = e.origin!;
    const key = `${repoURL}\u0000${commit}`;
    const group = out.get(key) ?? { repoURL, commit, entries: [] };
    group.entries.push(e);
    out.set(key, group);
  }
  return [...out.values()];
}

/** The entry as its own repository lists it. */
export function withoutOrigin(e: TreeEntry): TreeEntry {
  const { origin: _origin, ...rest } = e;
  return rest;
}
