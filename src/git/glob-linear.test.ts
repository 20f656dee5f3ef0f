// The linear-time (RE2) glob matchers against the backtracking translations they replace: the same
// answers on ordinary patterns, and an answer, without backtracking, on pathological ones.
import fc from "fast-check";
import { minimatch } from "minimatch";
import { describe, expect, it } from "vitest";
import { BadPatternError, compileDoublestar, compilePathMatch, compilePathspec, PatternTooComplexError } from "./glob.js";

/** The former translation of path.Match and pathspec patterns to a backtracking RegExp: the oracle. */
function oldTranslate(pattern: string, star: string, question: string, negators: string): RegExp {
  const esc = (c: string): string => (/[\\^$.*+?()[\]{}|/]/.test(c) ? `\\${c}` : c);
  let re = "";
  for (let i = 0; i < pattern.length;) {
    const c = pattern[i]!;
    if (c === "*" || c === "?") {
      re += c === "*" ? star : question;
      i++;
    } else if (c === "[") {
      let j = i + 1;
      let out = "[";
      if (j < pattern.length && negators.includes(pattern[j]!)) {
        out += "^";
        j++;
      }
      let items = 0;
      while (j < pattern.length && (pattern[j] !== "]" || (items === 0 && negators === "!^"))) {
        if (pattern[j] === "\\" && ++j >= pattern.length) throw new BadPatternError(pattern);
        out += esc(pattern[j]!);
        items++;
        j++;
      }
      if (j >= pattern.length || items === 0) throw new BadPatternError(pattern);
      re += `${out}]`;
      i = j + 1;
    } else if (c === "\\") {
      if (i + 1 >= pattern.length) throw new BadPatternError(pattern);
      re += esc(pattern[i + 1]!);
      i += 2;
    } else {
      re += esc(c);
      i++;
    }
  }
  return new RegExp(`^${re}$`, "s");
}

/**
 * The answer of a compiled matcher, or "bad" when the pattern is refused. The RegExp translation
 * let JavaScript's SyntaxError through for a class RegExp refuses (`[a-\\]`); the RE2 one says
 * BadPatternError, which the Git generator logs and skips: both count as refused.
 */
function answer(compile: () => (name: string) => boolean, name: string): boolean | "bad" {
  let test;
  try {
    test = compile();
  } catch (err) {
    if (err instanceof BadPatternError || err instanceof SyntaxError) return "bad";
    throw err;
  }
  return test(name);
}

const oldPathMatch = (p: string) => {
  const re = oldTranslate(p, "[^/]*", "[^/]", "^");
  return (n: string) => re.test(n);
};

const oldPathspec = (p: string) => {
  const q = p.replace(/^(\.\/)+/, "");
  const literal = (n: string): boolean => n === q || (n.startsWith(q) && (q.endsWith("/") || n[q.length] === "/"));
  if (q === "" || q === ".") return () => true;
  if (!/[*?[\\]/.test(q)) return literal;
  const re = oldTranslate(q, ".*", ".", "!^");
  return (n: string) => literal(n) || re.test(n);
};

const patternToken = fc.constantFrom(
  "a",
  "b",
  ".",
  "-",
  "/",
  "*",
  "?",
  "[ab]",
  "[^a]",
  "[!b]",
  "[a-c]",
  "[]a]",
  "\\*",
  "\\",
  "[",
  "]",
  "./",
);
const pattern = fc.array(patternToken, { maxLength: 8 }).map((t) => t.join(""));
const path = fc.array(fc.constantFrom("a", "b", "c", "/", ".", "-", "*", "]", "\n"), { maxLength: 12 }).map((t) => t.join(""));

describe("the linear path.Match and pathspec matchers", () => {
  it("answer as the backtracking path.Match translation did", () => {
    fc.assert(
      fc.property(pattern, path, (p, n) => {
        expect(answer(() => compilePathMatch(p), n)).toBe(answer(() => oldPathMatch(p), n));
      }),
      { numRuns: 1000 },
    );
  }, 30_000);

  it("answer as the backtracking pathspec translation did", () => {
    fc.assert(
      fc.property(pattern, path, (p, n) => {
        expect(answer(() => compilePathspec(p), n)).toBe(answer(() => oldPathspec(p), n));
      }),
      { numRuns: 1000 },
    );
  }, 30_000);
});

const dsToken = fc.constantFrom("a", "b", ".", "*", "?", "[ab]", "[!a]", "[^b]", "[a-b]", "{a,b}", "{a,b/c}", "{,a}", "{1..3}", "\\*");
const dsSegment = fc.oneof(
  { weight: 4, arbitrary: fc.array(dsToken, { minLength: 1, maxLength: 4 }).map((t) => t.join("")) },
  { weight: 1, arbitrary: fc.constant("**") },
);
// at most three brace groups: more may expand past the cap, which is refused (tested below)
const dsPattern = fc
  .array(dsSegment, { minLength: 1, maxLength: 5 })
  .map((s) => s.join("/"))
  .filter((p) => p.split("{").length <= 4);
const dsPath = fc
  .array(fc.constantFrom("a", "b", "ab", "ba", ".a", "a.b", "c", "2", "*", "a*"), { minLength: 1, maxLength: 5 })
  .map((s) => s.join("/"));

describe("the linear doublestar matcher", () => {
  it("answers as minimatch does on ordinary patterns and paths", () => {
    fc.assert(
      fc.property(dsPattern, dsPath, (p, n) => {
        const mm = minimatch(n, p.replace(/^(\.\/)+/, ""), { dot: true, nonegate: true, nocomment: true });
        expect(compileDoublestar(p)(n)).toBe(mm);
      }),
      { numRuns: 1000 },
    );
  }, 30_000);

  it.each([
    // name: what the row shows; pattern: the rule
    { name: "braces that expand past the cap are refused", pattern: "{a,b}".repeat(12) },
    { name: "a pattern longer than the cap is refused", pattern: "a".repeat(5000) },
    // 128 alternatives under the count cap, each about 4,000 characters: half a million to compile
    { name: "braces whose alternatives add up past the cap are refused", pattern: `${"{a,b}".repeat(7)}${"x".repeat(3900)}` },
  ])("$name", ({ pattern }) => {
    expect(() => compileDoublestar(pattern)).toThrow(PatternTooComplexError);
    expect(() => compileDoublestar(pattern)).toThrow(BadPatternError);
  });

  it.each([
    { name: "Go's path.Match", compile: compilePathMatch },
    { name: "git's pathspec", compile: compilePathspec },
  ])("$name refuses a pattern longer than the cap, and takes one at the cap", ({ compile }) => {
    expect(() => compile(`*${"a".repeat(4096)}`)).toThrow(PatternTooComplexError);
    expect(compile(`*${"a".repeat(4095)}`)(`x${"a".repeat(4095)}`)).toBe(true);
  });

  it("refuses extended globs, which Argo CD's doublestar does not have", () => {
    expect(() => compileDoublestar("apps/@(a|b)/x")).toThrow(BadPatternError);
  });
});

describe("pathological patterns against a 200-character path", () => {
  const stars = "*a".repeat(12) + "*b";
  const flat = "a".repeat(200);
  const deep = "a/".repeat(99) + "aa";
  it.each([
    // name: the matcher; test: the compiled pattern; name200: the path; want: the answer
    { name: "path.Match with many stars", test: compilePathMatch(stars), path: flat, want: false },
    { name: "path.Match with many stars that matches", test: compilePathMatch(stars), path: `${flat}b`.slice(1), want: true },
    { name: "a pathspec with many stars", test: compilePathspec(stars), path: deep, want: false },
    { name: "doublestar with many stars in a segment", test: compileDoublestar(`**/${stars}`), path: flat, want: false },
    { name: "doublestar with many ** segments", test: compileDoublestar(`${"**/".repeat(20)}b`), path: deep, want: false },
    { name: "doublestar with many ** segments that matches", test: compileDoublestar(`${"**/a/".repeat(20)}**`), path: deep, want: true },
  ])("$name completes with the right answer", ({ test, path, want }) => {
    expect(path.length).toBeGreaterThanOrEqual(200);
    expect(test(path)).toBe(want);
  });
});
