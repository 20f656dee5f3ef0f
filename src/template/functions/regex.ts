/**
 * Sprig's regex functions on RE2 (re2js, Go's regexp semantics): leftmost-first matching, Go's
 * "All" iteration (empty matches abutting a previous match are skipped), `$1`/`${name}` expansion
 * and Go's compile error texts.
 */
import type { RE2JS } from "re2js";
import { compileRe2js } from "../../re2.js";
import { fn, GoFuncError, type FuncMap, type GoFunc } from "../go/types.js";
import { typedSlice, type GoValue } from "../go/value.js";
import { num } from "./cast.js";

const cache = new Map<string, RE2JS>();

/** Compiles (cached) or throws Go's regexp error text. */
export function compileRe(pattern: string): RE2JS {
  let re = cache.get(pattern);
  if (!re) {
    try {
      re = compileRe2js(pattern);
    } catch (e) {
      throw new GoFuncError(e instanceof Error ? e.message : String(e));
    }
    if (cache.size > 1000) cache.clear();
    cache.set(pattern, re);
  }
  return re;
}

/** Match spans with submatch spans, following Go's FindAllSubmatchIndex. */
function allSubmatches(re: RE2JS, s: string, n: number): number[][] {
  const spans = re.re2().findAllIndex(s, n) as number[][] | null;
  if (!spans) return [];
  const m = re.matcher(s);
  const groups = re.groupCount();
  return spans.map(([start]) => {
    m.find(start);
    const out: number[] = [];
    for (let g = 0; g <= groups; g++) out.push(m.start(g), m.end(g));
    return out;
  });
}

/** regexp.Expand of a replacement template for one match. */
function expand(re: RE2JS, template: string, s: string, match: number[]): string {
  const names = re.namedGroups();
  let out = "";
  let t = template;
  for (;;) {
    const i = t.indexOf("$");
    if (i < 0) break;
    out += t.slice(0, i);
    t = t.slice(i + 1);
    if (t[0] === "$") {
      out += "$";
      t = t.slice(1);
      continue;
    }
    const m = /^(?:\{([A-Za-z0-9_]+)\}|([A-Za-z0-9_]+))/.exec(t);
    if (!m) {
      out += "$";
      continue;
    }
    t = t.slice(m[0].length);
    const name = m[1] ?? m[2]!;
    const idx = /^\d+$/.test(name) ? Number(name) : Object.hasOwn(names, name) ? names[name]! : -1;
    if (idx >= 0 && 2 * idx + 1 < match.length && match[2 * idx]! >= 0) out += s.slice(match[2 * idx], match[2 * idx + 1]);
  }
  return out + t;
}

function replaceAll(pattern: string, s: string, repl: string, literal: boolean): string {
  const re = compileRe(pattern);
  let out = "";
  let last = 0;
  for (const m of allSubmatches(re, s, -1)) {
    out += s.slice(last, m[0]) + (literal ? repl : expand(re, repl, s, m));
    last = m[1]!;
  }
  return out + s.slice(last);
}

function split(pattern: string, s: string, n: number): GoValue {
  if (n === 0) return typedSlice([], "[]string");
  const re = compileRe(pattern);
  if (pattern.length > 0 && s.length === 0) return typedSlice([""], "[]string");
  const matches = (re.re2().findAllIndex(s, n) as number[][] | null) ?? [];
  const out: string[] = [];
  let beg = 0;
  let end = 0;
  for (const m of matches) {
    if (n > 0 && out.length === n - 1) break;
    end = m[0]!;
    if (m[1] === 0) continue;
    out.push(s.slice(beg, end));
    beg = m[1]!;
  }
  if (end !== s.length) out.push(s.slice(beg));
  return typedSlice(out, "[]string");
}

function quoteMeta(s: string): string {
  return s.replace(/[\\.+*?()|[\]{}^$]/g, "\\$&");
}

/** strconv.CanBackquote. */
function canBackquote(s: string): boolean {
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === "`" || c === 0x7f || c === 0xfeff || (c < 0x20 && c !== 9)) return false;
  }
  return true;
}

/** Non-must variants use regexp.MustCompile, whose panic text wraps the compile error. */
function pair(name: string, f: (a: GoValue[]) => GoValue, params: string[]): Record<string, GoFunc> {
  const plain = fn(params, (a) => {
    try {
      compileRe(a[0] as string);
    } catch (e) {
      if (name === "regexMatch") return false;
      const p = a[0] as string;
      const q = canBackquote(p) ? "`" + p + "`" : JSON.stringify(p);
      throw new GoFuncError(`regexp: Compile(${q}): ${(e as Error).message}`);
    }
    return f(a);
  });
  return { [name]: plain, ["must" + name[0]!.toUpperCase() + name.slice(1)]: fn(params, f) };
}

const S = (v: GoValue): string => v as string;

/** The regex functions. */
export const REGEX_FUNCS: FuncMap = {
  ...pair("regexMatch", (a) => compileRe(S(a[0])).matcher(S(a[1])).find(), ["string", "string"]),
  ...pair("regexFindAll", (a) => typedSlice((compileRe(S(a[0])).re2().findAll(S(a[1]), num(a[2])) as string[] | null) ?? [], "[]string"), [
    "string",
    "string",
    "int",
  ]),
  ...pair("regexFind", (a) => (compileRe(S(a[0])).re2().find(S(a[1])) as string | null) ?? "", ["string", "string"]),
  ...pair("regexReplaceAll", (a) => replaceAll(S(a[0]), S(a[1]), S(a[2]), false), ["string", "string", "string"]),
  ...pair("regexReplaceAllLiteral", (a) => replaceAll(S(a[0]), S(a[1]), S(a[2]), true), ["string", "string", "string"]),
  ...pair("regexSplit", (a) => split(S(a[0]), S(a[1]), num(a[2])), ["string", "string", "int"]),
  regexQuoteMeta: fn(["string"], (a) => quoteMeta(S(a[0]))),
};
