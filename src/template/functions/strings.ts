/**
 * Sprig's string functions (Go strings semantics: byte-based lengths and slicing, goutils quirks).
 */
import { goQuote } from "../go/format.js";
import { fn, type FuncMap } from "../go/types.js";
import { typedMap, typedSlice, type GoValue } from "../go/value.js";
import { byteRunes, bytes, num, str, strslice, strval } from "./cast.js";
import { goLower, goUpper, pascalCase, separatedCase, swapCase, titleCase, wrapCustom } from "./textcase.js";

const s = (v: GoValue): string => v as string;
const GO_SPACE = /[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/u;

/** strings.TrimSpace (Unicode White_Space). */
export function trimSpace(x: string): string {
  let a = 0;
  let b = x.length;
  while (a < b && GO_SPACE.test(x[a]!)) a++;
  while (b > a && GO_SPACE.test(x[b - 1]!)) b--;
  return x.slice(a, b);
}

/** strings.Trim(s, cutset). */
export function trimCutset(x: string, cutset: string): string {
  const set = new Set(cutset);
  const chars = [...x];
  let a = 0;
  let b = chars.length;
  while (a < b && set.has(chars[a]!)) a++;
  while (b > a && set.has(chars[b - 1]!)) b--;
  return chars.slice(a, b).join("");
}

function trunc(c: number, x: string): string {
  const b = bytes(x);
  if (c < 0 && b.length + c > 0) return str(b.subarray(b.length + c));
  if (c >= 0 && b.length > c) return str(b.subarray(0, c));
  return x;
}

function substr(start: number, end: number, x: string): string {
  const b = bytes(x);
  if (start < 0) return sliceBytes(b, 0, end);
  if (end < 0 || end > b.length) return sliceBytes(b, start, b.length);
  return sliceBytes(b, start, end);
}

function sliceBytes(b: Buffer, lo: number, hi: number): string {
  if (hi < 0 || hi > b.length) throw goPanic(`runtime error: slice bounds out of range [:${hi}] with length ${b.length}`);
  if (lo > hi) throw goPanic(`runtime error: slice bounds out of range [${lo}:${hi}]`);
  return str(b.subarray(lo, hi));
}

import { GoFuncError } from "../go/types.js";
function goPanic(msg: string): GoFuncError {
  return new GoFuncError(msg);
}

function abbreviateFull(x: string, offset: number, maxWidth: number): string {
  const b = bytes(x);
  if (x === "" || maxWidth < 4 || b.length <= maxWidth) return x;
  if (offset > b.length) offset = b.length;
  if (b.length - offset < maxWidth - 3) offset = b.length - (maxWidth - 3);
  if (offset <= 4) return str(b.subarray(0, maxWidth - 3)) + "...";
  if (maxWidth < 7) return "";
  if (offset + maxWidth - 3 < b.length) return "..." + abbreviateFull(str(b.subarray(offset)), 0, maxWidth - 3);
  return "..." + str(b.subarray(b.length - (maxWidth - 3)));
}

function initials(x: string): string {
  let out = "";
  let gap = true;
  for (const ch of byteRunes(x)) {
    if (GO_SPACE.test(ch)) gap = true;
    else if (gap) {
      out += ch;
      gap = false;
    }
  }
  return x === "" ? "" : out;
}

function uncapitalize(x: string): string {
  let next = true;
  return [...x]
    .map((ch) => {
      if (GO_SPACE.test(ch)) next = true;
      else if (next) {
        next = false;
        return ch.toLowerCase();
      }
      return ch;
    })
    .join("");
}

function nospace(x: string): string {
  const runes = byteRunes(x);
  const kept = runes.filter((ch) => !GO_SPACE.test(ch));
  return kept.length === runes.length ? x : kept.join("");
}

function indent(n: number, x: string): string {
  const pad = " ".repeat(Math.max(n, 0));
  return pad + x.split("\n").join("\n" + pad);
}

function split(sep: string, orig: string, n = -1): GoValue {
  const parts = goSplit(orig, sep, n);
  const m: Record<string, GoValue> = {};
  parts.forEach((p, i) => (m[`_${i}`] = p));
  return typedMap(m, "map[string]string");
}

/** strings.SplitN (n < 0: all). */
export function goSplit(x: string, sep: string, n = -1): string[] {
  if (n === 0) return [];
  if (sep === "") {
    const runes = [...x];
    if (n < 0 || n >= runes.length) return runes;
    return [...runes.slice(0, n - 1), runes.slice(n - 1).join("")];
  }
  const parts = x.split(sep);
  if (n < 0 || parts.length <= n) return parts;
  return [...parts.slice(0, n - 1), parts.slice(n - 1).join(sep)];
}

/** The string functions. */
export const STRING_FUNCS: FuncMap = {
  hello: fn([], () => "Hello!"),
  fail: fn(["string"], (a) => {
    throw new GoFuncError(s(a[0]));
  }),
  abbrev: fn(["int", "string"], (a) => (num(a[0]) < 4 ? s(a[1]) : abbreviateFull(s(a[1]), 0, num(a[0])))),
  abbrevboth: fn(["int", "int", "string"], (a) => {
    const [l, r] = [num(a[0]), num(a[1])];
    return r < 4 || (l > 0 && r < 7) ? s(a[2]) : abbreviateFull(s(a[2]), l, r);
  }),
  trunc: fn(["int", "string"], (a) => trunc(num(a[0]), s(a[1]))),
  trim: fn(["string"], (a) => trimSpace(s(a[0]))),
  upper: fn(["string"], (a) => goUpper(s(a[0]))),
  lower: fn(["string"], (a) => goLower(s(a[0]))),
  title: fn(["string"], (a) => titleCase(s(a[0]))),
  untitle: fn(["string"], (a) => uncapitalize(s(a[0]))),
  substr: fn(["int", "int", "string"], (a) => substr(num(a[0]), num(a[1]), s(a[2]))),
  repeat: fn(["int", "string"], (a, ctx) => {
    const n = num(a[0]);
    if (n < 0) throw goPanic("strings: negative Repeat count");
    ctx.charge(n * s(a[1]).length);
    return s(a[1]).repeat(n);
  }),
  trimall: fn(["string", "string"], (a) => trimCutset(s(a[1]), s(a[0]))),
  trimAll: fn(["string", "string"], (a) => trimCutset(s(a[1]), s(a[0]))),
  trimSuffix: fn(["string", "string"], (a) => (s(a[0]) && s(a[1]).endsWith(s(a[0])) ? s(a[1]).slice(0, -s(a[0]).length) : s(a[1]))),
  trimPrefix: fn(["string", "string"], (a) => (s(a[1]).startsWith(s(a[0])) ? s(a[1]).slice(s(a[0]).length) : s(a[1]))),
  nospace: fn(["string"], (a) => nospace(s(a[0]))),
  initials: fn(["string"], (a) => initials(s(a[0]))),
  swapcase: fn(["string"], (a) => swapCase(s(a[0]))),
  snakecase: fn(["string"], (a) => separatedCase(s(a[0]), "_")),
  camelcase: fn(["string"], (a) => pascalCase(s(a[0]))),
  kebabcase: fn(["string"], (a) => separatedCase(s(a[0]), "-")),
  wrap: fn(["int", "string"], (a) => wrapCustom(s(a[1]), num(a[0]), "\n", false)),
  wrapWith: fn(["int", "string", "string"], (a) => wrapCustom(s(a[2]), num(a[0]), s(a[1]), true)),
  contains: fn(["string", "string"], (a) => s(a[1]).includes(s(a[0]))),
  hasPrefix: fn(["string", "string"], (a) => s(a[1]).startsWith(s(a[0]))),
  hasSuffix: fn(["string", "string"], (a) => s(a[1]).endsWith(s(a[0]))),
  quote: fn(
    [],
    (a) =>
      a
        .filter((v) => v !== null)
        .map((v) => goQuote(strval(v)))
        .join(" "),
    "any",
  ),
  squote: fn(
    [],
    (a) =>
      a
        .filter((v) => v !== null)
        .map((v) => `'${strval(v)}'`)
        .join(" "),
    "any",
  ),
  cat: fn(
    [],
    (a) =>
      a
        .filter((v) => v !== null)
        .map(strval)
        .join(" "),
    "any",
  ),
  indent: fn(["int", "string"], (a) => indent(num(a[0]), s(a[1]))),
  nindent: fn(["int", "string"], (a) => "\n" + indent(num(a[0]), s(a[1]))),
  replace: fn(["string", "string", "string"], (a) => goReplaceAll(s(a[2]), s(a[0]), s(a[1]))),
  plural: fn(["string", "string", "int"], (a) => (num(a[2]) === 1 ? s(a[0]) : s(a[1]))),
  toString: fn(["any"], (a) => strval(a[0])),
  toStrings: fn(["any"], (a) => strslice(a[0])),
  join: fn(["string", "any"], (a) => (strslice(a[1]) as string[]).join(s(a[0]))),
  split: fn(["string", "string"], (a) => split(s(a[0]), s(a[1]))),
  splitn: fn(["string", "int", "string"], (a) => split(s(a[0]), s(a[2]), num(a[1]))),
  splitList: fn(["string", "string"], (a) => typedSlice(goSplit(s(a[1]), s(a[0])), "[]string")),
};

/** strings.Replace(s, old, new, -1), including Go's empty-old rule (insert around every rune). */
export function goReplaceAll(x: string, old: string, nw: string): string {
  if (old === "") return nw + [...x].join(nw) + (x.length ? nw : "");
  return x.split(old).join(nw);
}
