/**
 * The glob dialect Argo CD matches with (`util/glob`, over gobwas/glob with no separators): resource
 * customizations, exclusions and ignore rules, AppProject source repositories, destinations and
 * resource lists, sync windows, allowed namespaces. `*` matches any run of characters, `/`
 * included; `?` one character; `[abc]`, `[a-z]` and `[!abc]` a class; `{a,b}` alternatives; `\`
 * escapes the next character. With separators (Argo CD passes `/` for AppProject source
 * repositories), `*` and `?` do not match a separator and `**` matches any run, separators
 * included. A malformed pattern matches nothing, as Argo CD's `glob.Match` returns false when the
 * pattern does not compile. Patterns compile to RE2 (re2js), so a match
 * takes linear time in the text whatever the pattern; compiled patterns are memoised (at most
 * 10,000, as Argo CD's cache). Pure.
 */
import type { RE2JS } from "re2js";
import { compileRe2js } from "../re2.js";
import { remember } from "../bounded-map.js";

const SPECIAL = /[\\^$.*+?()[\]{}|/]/;

const escape = (c: string): string => (SPECIAL.test(c) ? `\\${c}` : c);

/** The end (index of `]`) of the class that opens at `i`, or -1. */
function classEnd(pattern: string, i: number): number {
  let j = i + 1;
  if (pattern[j] === "!") j++;
  for (let first = true; j < pattern.length; j++, first = false) {
    if (pattern[j] === "]" && !first) return j;
    if (pattern[j] === "\\") j++;
  }
  return -1;
}

/** The regex of the class `[...]` from `i` to `end`. */
function classSource(pattern: string, i: number, end: number): string {
  let body = pattern.slice(i + 1, end);
  const negated = body.startsWith("!");
  if (negated) body = body.slice(1);
  const chars = body.replace(/\\(.)/g, "$1").replace(/[\\\]^]/g, (c) => `\\${c}`);
  return `[${negated ? "^" : ""}${chars}]`;
}

interface Cursor {
  i: number;
  depth: number;
  /** The separators `*` and `?` stop at, as a regex class body ("" for none). */
  readonly sep: string;
}

/** The regex of `*` (or of `**` when `cur.i` is at its second star) under the cursor's separators. */
function star(pattern: string, cur: Cursor): string {
  if (cur.sep === "") return "(?s:.)*";
  if (pattern[cur.i] === "*") {
    cur.i++;
    return "(?s:.)*";
  }
  return `[^${cur.sep}]*`;
}

/** The regex of `?` under the cursor's separators. */
function single(cur: Cursor): string {
  return cur.sep === "" ? "(?s:.)" : `[^${cur.sep}]`;
}

/** Translates one token at `cur.i`; returns its regex source, or undefined when the pattern is malformed. */
function token(pattern: string, cur: Cursor): string | undefined {
  const c = pattern[cur.i]!;
  cur.i++;
  switch (c) {
    case "*":
      return star(pattern, cur);
    case "?":
      return single(cur);
    case "\\":
      if (cur.i >= pattern.length) return undefined;
      return escape(pattern[cur.i++]!);
    case "[": {
      const end = classEnd(pattern, cur.i - 1);
      if (end < 0) return undefined;
      const src = classSource(pattern, cur.i - 1, end);
      cur.i = end + 1;
      return src;
    }
    case "{":
      cur.depth++;
      return "(?:";
    case "}":
      if (cur.depth === 0) return escape(c);
      cur.depth--;
      return ")";
    case ",":
      return cur.depth > 0 ? "|" : ",";
    default:
      return escape(c);
  }
}

/** The body of a regex class holding each separator. */
function separatorClass(separators: string): string {
  return [...separators].map((c) => (/[\\\]^-]/.test(c) ? `\\${c}` : c)).join("");
}

/**
 * The RE2 source of a glob (matched whole), or undefined when the glob is malformed. `separators`
 * (none by default) are the characters `*` and `?` do not match.
 */
export function globSource(pattern: string, separators = ""): string | undefined {
  const cur: Cursor = { i: 0, depth: 0, sep: separatorClass(separators) };
  let src = "";
  while (cur.i < pattern.length) {
    const part = token(pattern, cur);
    if (part === undefined) return undefined;
    src += part;
  }
  return cur.depth === 0 ? src : undefined;
}

/** How many compiled globs are kept. */
const CACHE_SIZE = 10_000;
const compiled = new Map<string, RE2JS | null>();

/** RE2 of a glob's source; null when there is none or RE2 refuses it. */
function compileSource(src: string | undefined): RE2JS | null {
  if (src === undefined) return null;
  try {
    return compileRe2js(src);
  } catch {
    return null;
  }
}

/** The compiled glob (memoised per pattern and separators), or null when the glob is malformed. */
function compileGlob(pattern: string, separators: string): RE2JS | null {
  const key = separators === "" ? pattern : `${pattern}\u0000${separators}`;
  const hit = compiled.get(key);
  if (hit !== undefined) return hit;
  const re = compileSource(globSource(pattern, separators));
  remember(compiled, key, re, CACHE_SIZE);
  return re;
}

/**
 * True when all of `text` matches the glob `pattern` (Argo CD's `glob.Match`). `separators` (none
 * by default) are the characters `*` and `?` do not match; `**` matches them too.
 */
export function globMatch(pattern: string, text: string, separators = ""): boolean {
  return compileGlob(pattern, separators)?.matches(text) ?? false;
}
