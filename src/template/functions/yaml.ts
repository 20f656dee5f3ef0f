/**
 * A YAML emitter reproducing sigs.k8s.io/yaml Marshal output (go-yaml v2 over JSON-decoded data)
 * for JSON-shaped values: go-yaml's key order, block style with unindented sequences, YAML 1.1
 * quoting of strings that would resolve to other types, literal blocks for multi-line strings.
 * Known gap: go-yaml folds long quoted scalars at 80 columns; this emitter does not.
 */
import { formatFloatV } from "../go/format.js";
import type { GoValue } from "../go/value.js";
import { marshal } from "./json.js";

type J = null | boolean | number | string | J[] | { [k: string]: J };

const BOOL11 = /^(y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$/;
const NULL11 = /^(~|null|Null|NULL|)$/;
const INT11 = /^[-+]?(0b[01_]+|0[0-7_]+|0x[0-9a-fA-F_]+|(0|[1-9][0-9_]*)|[1-9][0-9_]*(:[0-5]?[0-9])+)$/;
const FLOAT11 = /^([-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?|[-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN))$/;
const BASE60 = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;

function resolvesToString(s: string): boolean {
  return !(BOOL11.test(s) || NULL11.test(s) || INT11.test(s) || FLOAT11.test(s) || BASE60.test(s) || s === "<<");
}

/** libyaml's analysis: can the scalar be written plain / single-quoted in block context? */
function plainAllowed(s: string): boolean {
  if (s === "" || /^(---|\.\.\.)/.test(s)) return false;
  if (/^[\s]|[\s]$/.test(s)) return false;
  if (/^[#,[\]{}&*!|>'"%@`]/.test(s)) return false;
  if (/^[-?:](\s|$)/.test(s)) return false;
  if (/: |:$| #/.test(s)) return false;
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u0080-\u009f\ufeff]/.test(s)) return false;
  return true;
}

function doubleQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    const named: Record<string, string> = {
      '"': '\\"',
      "\\": "\\\\",
      "\0": "\\0",
      "\x07": "\\a",
      "\b": "\\b",
      "\t": "\\t",
      "\n": "\\n",
      "\v": "\\v",
      "\f": "\\f",
      "\r": "\\r",
      "\x1b": "\\e",
      "\u0085": "\\N",
      "\u00a0": "\\_",
      "\u2028": "\\L",
      "\u2029": "\\P",
    };
    if (named[ch]) out += named[ch];
    else if (c < 0x20 || c === 0x7f || (c >= 0x80 && c < 0xa0) || c === 0xfeff)
      out += c <= 0xff ? "\\x" + c.toString(16).toUpperCase().padStart(2, "0") : "\\u" + c.toString(16).toUpperCase().padStart(4, "0");
    else out += ch;
  }
  return out + '"';
}

function scalarString(s: string, indent: string): string {
  // eslint-disable-next-line no-control-regex
  if (s.includes("\n") && !/[\x00-\x08\x0b-\x1f\x7f]/.test(s.replace(/\n/g, ""))) {
    const chomp = s.endsWith("\n") ? (s.endsWith("\n\n") ? "+" : "") : "-";
    const body = (s.endsWith("\n") ? s.slice(0, -1) : s).split("\n");
    const lead = /^[ ]/.test(s) ? "2" : "";
    return `|${lead}${chomp}` + body.map((l) => (l === "" ? "\n" : `\n${indent}  ${l}`)).join("");
  }
  if (!resolvesToString(s)) return doubleQuote(s);
  if (plainAllowed(s)) return s;
  // eslint-disable-next-line no-control-regex
  if (!/[\n\x00-\x1f\x7f]/.test(s) && !/^\s|\s$/.test(s.replace(/ /g, "x"))) return `'${s.replace(/'/g, "''")}'`;
  return doubleQuote(s);
}

const letter = (r: string): boolean => /^\p{L}$/u.test(r);
const digit = (r: string | undefined): boolean => r !== undefined && /^\p{Nd}$/u.test(r);

/** go-yaml's key order (keyList.Less). */
function keyLess(a: string, b: string): number {
  const ar = [...a];
  const br = [...b];
  for (let i = 0; i < ar.length && i < br.length; i++) {
    if (ar[i] !== br[i]) return runeOrder(ar, br, i);
  }
  return ar.length - br.length;
}

/** The order at the first differing rune `i`: two letters by code point, anything else before a letter, else by number. */
function runeOrder(ar: string[], br: string[], i: number): number {
  const al = letter(ar[i]!);
  const bl = letter(br[i]!);
  if (al && bl) return ar[i]! < br[i]! ? -1 : 1;
  if (al || bl) return bl ? -1 : 1;
  return numberOrder(ar, br, i);
}

/**
 * The digit runs from `i` by value, then by length, then the runes at `i`. When either rune is a
 * zero inside a number with a non-zero digit before it, both values start from 1, as go-yaml does.
 */
function numberOrder(ar: string[], br: string[], i: number): number {
  const start = (ar[i] === "0" || br[i] === "0") && nonZeroDigitBefore(ar, i) ? 1 : 0;
  const a = digitRun(ar, i, start);
  const b = digitRun(br, i, start);
  if (a.n !== b.n) return a.n < b.n ? -1 : 1;
  if (a.end !== b.end) return a.end < b.end ? -1 : 1;
  return ar[i]! < br[i]! ? -1 : 1;
}

/** Whether the digits just before `i` include a non-zero one. */
function nonZeroDigitBefore(rs: string[], i: number): boolean {
  for (let j = i - 1; j >= 0 && digit(rs[j]); j--) if (rs[j] !== "0") return true;
  return false;
}

/** The value of the digit run from `i`, accumulated onto `n`, and where it ends. */
function digitRun(rs: string[], i: number, n: number): { n: number; end: number } {
  let end = i;
  for (; end < rs.length && digit(rs[end]); end++) n = n * 10 + Number(rs[end]);
  return { n, end };
}

function scalar(v: J, indent: string, numText: Map<number, string>): string {
  if (v === null) return "null";
  if (typeof v === "boolean") return String(v);
  if (typeof v === "number") return numText.get(v) ?? (Number.isInteger(v) && Math.abs(v) < 2 ** 63 ? String(v) : formatFloatV(v));
  return scalarString(v as string, indent);
}

function isCollection(v: J): v is J[] | { [k: string]: J } {
  return typeof v === "object" && v !== null && (Array.isArray(v) ? v.length > 0 : Object.keys(v).length > 0);
}

function emptyFlow(v: J): string | null {
  if (Array.isArray(v) && v.length === 0) return "[]";
  if (typeof v === "object" && v !== null && !Array.isArray(v) && Object.keys(v).length === 0) return "{}";
  return null;
}

function node(v: J, indent: string, nums: Map<number, string>): string[] {
  if (Array.isArray(v)) {
    return v.flatMap((item) => {
      if (isCollection(item)) {
        const lines = node(item, indent + "  ", nums);
        return [`${indent}- ${lines[0]!.trimStart()}`, ...lines.slice(1)];
      }
      return [`${indent}- ${emptyFlow(item) ?? scalar(item, indent, nums)}`];
    });
  }
  const m = v as { [k: string]: J };
  return Object.keys(m)
    .sort(keyLess)
    .flatMap((k) => {
      const key = scalarString(k, indent);
      const val = m[k]!;
      if (isCollection(val)) return [`${indent}${key}:`, ...node(val, Array.isArray(val) ? indent : indent + "  ", nums)];
      return [`${indent}${key}: ${emptyFlow(val) ?? scalar(val, indent, nums)}`];
    });
}

/** sigs.k8s.io/yaml.Marshal(v) (with the trailing newline). */
export function goYamlMarshal(v: GoValue): string {
  const json = marshal(v);
  const parsed = JSON.parse(json) as J;
  const nums = new Map<number, string>();
  // Integers written by encoding/json stay integers in go-yaml; others are float64.
  for (const m of json.matchAll(/-?\d+(\.\d+)?([eE][-+]?\d+)?/g)) {
    const x = Number(m[0]);
    if (!m[1] && !m[2] && Number.isSafeInteger(x)) nums.set(x, m[0]);
  }
  if (!isCollection(parsed)) return (emptyFlow(parsed) ?? scalar(parsed, "", nums)) + "\n";
  return node(parsed, "", nums).join("\n") + "\n";
}
