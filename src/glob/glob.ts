/**
 * The glob dialect Argo CD matches with (`util/glob`, over gobwas/glob with no separators): resource
 * customizations, exclusions and ignore rules, AppProject source repositories, destinations and
 * resource lists, sync windows, allowed namespaces. `*` matches any run of characters, `/`
 * included; `?` one character; `[abc]`, `[a-z]` and `[!abc]` a class; `{a,b}` alternatives; `\`
 * escapes the next character. A malformed pattern matches nothing, as Argo CD's `glob.Match`
 * returns false when the pattern does not compile. Patterns compile to RE2 (re2js), so a match
 * takes linear time in the text whatever the pattern; compiled patterns are memoised (at most
 * 10,000, as Argo CD's cache). Pure.
 */
import { RE2JS } from "re2js";
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
}

/** Translates one token at `cur.i`; returns its regex source, or undefined when the pattern is malformed. */
function token(pattern: string, cur: Cursor): string | undefined {
  const c = pattern[cur.i]!;
  cur.i++;
  switch (c) {
    case "*":
      return "(?s:.)*";
    case "?":
      return "(?s:.)";
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

/** The RE2 source of a glob (matched whole), or undefined when the glob is malformed. */
export function globSource(pattern: string): string | undefined {
  const cur: Cursor = { i: 0, depth: 0 };
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
    return RE2JS.compile(src);
  } catch {
    return null;
  }
}

/** The compiled glob (memoised), or null when the glob is malformed. */
function compileGlob(pattern: string): RE2JS | null {
  const hit = compiled.get(pattern);
  if (hit !== undefined) return hit;
  const re = compileSource(globSource(pattern));
  remember(compiled, pattern, re, CACHE_SIZE);
  return re;
}

/** True when all of `text` matches the glob `pattern` (Argo CD's `glob.Match`). */
export function globMatch(pattern: string, text: string): boolean {
  return compileGlob(pattern)?.matches(text) ?? false;
}
