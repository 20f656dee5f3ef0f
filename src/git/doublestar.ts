/**
 * Doublestar globs (the Git generator's file rules with `--enable-new-git-file-globbing`) as one
 * RE2 expression, with minimatch's meaning under `{ dot: true, nonegate: true, nocomment: true }`
 * for the paths of a Git tree: braces expand first (`{a,b}`, `{1..3}`), then each alternative is
 * split on `/`; a `**` segment spans any number of directories (at least one when it ends the
 * pattern), `*` and `?` stay within one segment and match dot files, `[...]` is a class, `\`
 * escapes. Brace expansion is bounded ({@link MAX_ALTERNATIVES}); extglobs (`@(a|b)`, `!(a)`, …)
 * are refused, as Argo CD's doublestar has none. Matching takes linear time in the path. Pure.
 */
import { braceExpand } from "minimatch";
import { BadPatternError, compileRe2, reLiteral } from "./glob-re2.js";

/** The most alternatives a pattern's braces may expand to. */
export const MAX_ALTERNATIVES = 256;
/** The longest pattern accepted, in characters (every dialect). */
export const MAX_PATTERN_LENGTH = 4096;
/** The most characters a pattern's brace alternatives may add up to (what is compiled). */
export const MAX_EXPANDED_LENGTH = 16_384;

/** A pattern refused because it is too long or its braces expand too far. */
export class PatternTooComplexError extends BadPatternError {
  constructor(pattern: string, reason: string) {
    super(pattern, reason);
    this.name = "PatternTooComplexError";
  }
}

const GLOBSTAR = Symbol("globstar");
type Part = string | typeof GLOBSTAR;

/** The end (index of `]`) of the class opening at `i`, or -1 when it is not closed. */
function classEnd(seg: string, i: number): number {
  let j = i + 1;
  if (seg[j] === "!" || seg[j] === "^") j++;
  for (let first = true; j < seg.length; j++, first = false) {
    if (seg[j] === "]" && !first) return j;
    if (seg[j] === "\\") j++;
  }
  return -1;
}

/** The RE2 class of `seg[i..end]` (a negated class never matches `/`). */
function classSource(pattern: string, seg: string, i: number, end: number): string {
  let j = i + 1;
  const negated = seg[j] === "!" || seg[j] === "^";
  if (negated) j++;
  const chars: string[] = [];
  for (; j < end; j++) chars.push(seg[j] === "\\" ? seg[++j]! : seg[j]!);
  let body = "";
  for (let k = 0; k < chars.length; k++) {
    const c = chars[k]!;
    if (c === "[" && chars[k + 1] === ":") throw new BadPatternError(pattern, "POSIX character classes are not supported");
    if (chars[k + 1] === "-" && k + 2 < chars.length) {
      const hi = chars[k + 2]!;
      if (hi < c) throw new BadPatternError(pattern, "a character range is out of order");
      body += `${reLiteral(c)}-${reLiteral(hi)}`;
      k += 2;
    } else body += reLiteral(c);
  }
  return negated ? `[^/${body}]` : `[${body}]`;
}

const EXTGLOB = new Set(["*", "?", "+", "@", "!"]);

/** The RE2 source of one segment (not `**`). */
function segmentSource(pattern: string, seg: string): string {
  let out = "";
  for (let i = 0; i < seg.length; i++) {
    const c = seg[i]!;
    if (EXTGLOB.has(c) && seg[i + 1] === "(") throw new BadPatternError(pattern, "extended globs are not supported");
    if (c === "*") out += "[^/]*";
    else if (c === "?") out += "[^/]";
    else if (c === "\\") out += reLiteral(i + 1 < seg.length ? seg[++i]! : c);
    else if (c === "[") {
      const end = classEnd(seg, i);
      if (end < 0) out += reLiteral(c);
      else {
        out += classSource(pattern, seg, i, end);
        i = end;
      }
    } else out += reLiteral(c);
  }
  return out;
}

/**
 * The segments of one brace alternative as minimatch reads them: repeated slashes collapsed, `**`
 * runs collapsed and `x/..` resolved.
 */
function parts(alternative: string): Part[] {
  const out: Part[] = [];
  const segs = alternative.split("/");
  for (const seg of segs.filter((s, i) => s !== "" || i === 0 || i === segs.length - 1)) {
    const prev = out[out.length - 1];
    if (seg === "**" && prev === GLOBSTAR) continue;
    if (seg === ".." && prev !== undefined && prev !== GLOBSTAR && prev !== ".." && prev !== ".") {
      out.pop();
      continue;
    }
    out.push(seg === "**" ? GLOBSTAR : seg);
  }
  return out.length === 0 ? [""] : out;
}

/** The RE2 source of one brace alternative. */
function alternativeSource(pattern: string, alternative: string): string {
  const ps = parts(alternative);
  let src = "";
  ps.forEach((p, i) => {
    const last = i === ps.length - 1;
    if (p === GLOBSTAR) src += last ? "(?s:.*)" : "(?:[^/]*/)*";
    else src += segmentSource(pattern, p) + (last ? "" : "/");
  });
  return src;
}

/** The brace alternatives of a pattern, refused past {@link MAX_ALTERNATIVES}. */
function alternatives(pattern: string): string[] {
  if (pattern.length > MAX_PATTERN_LENGTH) {
    throw new PatternTooComplexError(pattern, `the pattern is longer than ${MAX_PATTERN_LENGTH} characters`);
  }
  const alts = braceExpand(pattern, { braceExpandMax: MAX_ALTERNATIVES + 1 });
  if (alts.length > MAX_ALTERNATIVES) {
    throw new PatternTooComplexError(pattern, `the braces expand to more than ${MAX_ALTERNATIVES} alternatives`);
  }
  if (alts.reduce((n, a) => n + a.length, 0) > MAX_EXPANDED_LENGTH) {
    throw new PatternTooComplexError(pattern, `the braces expand to more than ${MAX_EXPANDED_LENGTH} characters`);
  }
  return alts;
}

/** The RE2 source matching the whole path for a doublestar pattern. Throws {@link BadPatternError}. */
export function doublestarSource(pattern: string): string {
  const alts = [...new Set(alternatives(pattern))];
  return `(?:${alts.map((a) => alternativeSource(pattern, a)).join("|")})`;
}

/**
 * Compiles a doublestar pattern (leading `./` dropped) to a linear-time test of a whole path.
 * Throws {@link BadPatternError} (or {@link PatternTooComplexError}) for a pattern it refuses.
 */
export function compileDoublestar(pattern: string): (name: string) => boolean {
  const p = pattern.replace(/^(\.\/)+/, "");
  const re = compileRe2(p, doublestarSource(p));
  return (name) => re.matches(name);
}
