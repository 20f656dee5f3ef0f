/**
 * Path globbing over the paths of a Git tree, in the three dialects the Git generator needs:
 * Go's `path.Match` (directory rules: `*` and `?` never cross `/`), git's default pathspec
 * (file rules in Argo CD's default mode, `git ls-files -- <pattern>`: `*` crosses `/`, and a
 * literal pattern also matches everything below a directory of that name), and doublestar
 * (file rules with `--enable-new-git-file-globbing`: `**` spans directories, `*` one segment,
 * in `doublestar.ts`). Every dialect compiles to RE2 (re2js), so matching a tenant's pattern takes
 * time linear in the path, whatever the pattern.
 */
import { BadPatternError, compileRe2 } from "./glob-re2.js";
import { MAX_PATTERN_LENGTH, PatternTooComplexError } from "./doublestar.js";

export { BadPatternError } from "./glob-re2.js";
export { compileDoublestar, PatternTooComplexError } from "./doublestar.js";

const REGEX_SPECIAL = /[\\^$.*+?()[\]{}|/]/;

function escapeChar(c: string): string {
  return REGEX_SPECIAL.test(c) ? `\\${c}` : c;
}

interface ClassOptions {
  /** Characters that negate the class when they open it. */
  readonly negators: string;
}

/** Parses a `[...]` class starting at `i` (the `[`); returns the regex and the index after `]`. */
function parseClass(pattern: string, i: number, opts: ClassOptions): [string, number] {
  let j = i + 1;
  let out = "[";
  if (j < pattern.length && opts.negators.includes(pattern[j]!)) {
    out += "^";
    j++;
  }
  let items = 0;
  while (j < pattern.length && (pattern[j] !== "]" || (items === 0 && opts.negators === "!^"))) {
    let c = pattern[j]!;
    if (c === "\\") {
      j++;
      if (j >= pattern.length) throw new BadPatternError(pattern);
      c = pattern[j]!;
    }
    out += escapeChar(c);
    items++;
    j++;
  }
  if (j >= pattern.length || items === 0) throw new BadPatternError(pattern);
  return [`${out}]`, j + 1];
}

function translate(pattern: string, star: string, question: string, opts: ClassOptions): (name: string) => boolean {
  if (pattern.length > MAX_PATTERN_LENGTH) {
    throw new PatternTooComplexError(pattern, `the pattern is longer than ${MAX_PATTERN_LENGTH} characters`);
  }
  let re = "";
  for (let i = 0; i < pattern.length;) {
    const c = pattern[i]!;
    if (c === "*") {
      re += star;
      i++;
    } else if (c === "?") {
      re += question;
      i++;
    } else if (c === "[") {
      const [cls, next] = parseClass(pattern, i, opts);
      re += cls;
      i = next;
    } else if (c === "\\") {
      if (i + 1 >= pattern.length) throw new BadPatternError(pattern);
      re += escapeChar(pattern[i + 1]!);
      i += 2;
    } else {
      re += escapeChar(c);
      i++;
    }
  }
  const compiled = compileRe2(pattern, re);
  return (name) => compiled.matches(name);
}

/**
 * Compiles a Go `path.Match` pattern. Throws {@link BadPatternError} for a malformed one, as Go
 * does (an unclosed or empty class, a trailing backslash).
 */
export function compilePathMatch(pattern: string): (name: string) => boolean {
  return translate(pattern, "[^/]*", "[^/]", { negators: "^" });
}

const GLOB_CHARS = /[*?[\\]/;

/**
 * Compiles a git pathspec in its default ("glob" magic off) form, as `git ls-files -- <pattern>`
 * applies it to paths relative to the repository root: a literal pattern matches that path or
 * anything under it; a wildcard pattern is matched against the whole path with `*` and `?`
 * crossing `/`.
 */
export function compilePathspec(pattern: string): (name: string) => boolean {
  const p = pattern.replace(/^(\.\/)+/, "");
  if (p === "" || p === ".") return () => true;
  const literal = (name: string): boolean => name === p || (name.startsWith(p) && (p.endsWith("/") || name[p.length] === "/"));
  if (!GLOB_CHARS.test(p)) return literal;
  const wild = translate(p, "(?s:.*)", "(?s:.)", { negators: "!^" });
  return (name) => literal(name) || wild(name);
}
