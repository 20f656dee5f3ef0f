/**
 * The glob dialect Argo CD matches resource customizations, exclusions and ignore rules with
 * (`util/glob`, over gobwas/glob with no separators): `*` matches any run of characters, `/`
 * included; `?` one character; `[abc]`, `[a-z]` and `[!abc]` a class; `{a,b}` alternatives; `\`
 * escapes the next character. A malformed pattern matches nothing, as Argo CD's `glob.Match`
 * returns false when the pattern does not compile. Pure.
 */

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
      return "[\\s\\S]*";
    case "?":
      return "[\\s\\S]";
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

/** The anchored regex of a glob, or undefined when the glob is malformed. */
export function globRegExp(pattern: string): RegExp | undefined {
  const cur: Cursor = { i: 0, depth: 0 };
  let src = "";
  while (cur.i < pattern.length) {
    const part = token(pattern, cur);
    if (part === undefined) return undefined;
    src += part;
  }
  return cur.depth === 0 ? new RegExp(`^${src}$`) : undefined;
}

/** True when `text` matches the glob `pattern` (Argo CD's `glob.Match`). */
export function globMatch(pattern: string, text: string): boolean {
  return globRegExp(pattern)?.test(text) ?? false;
}
