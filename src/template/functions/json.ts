/**
 * Go's encoding/json for template values: Marshal (sorted keys, HTML-escaped <, >, &, escaped
 * U+2028/U+2029, shortest float formatting), MarshalIndent, the non-escaping Encoder, and
 * Unmarshal into interface{} with Go's syntax-error texts.
 */
import { GoFuncError } from "../go/types.js";
import { jsonSyntaxError } from "./jsonscan.js";
import { GoInt, isSpecial, sortedKeys, type GoMap, type GoValue } from "../go/value.js";

/** The characters JSON writes with a short escape. */
const SHORT_ESCAPES = new Map([
  ['"', '\\"'],
  ["\\", "\\\\"],
  ["\n", "\\n"],
  ["\r", "\\r"],
  ["\t", "\\t"],
  ["\b", "\\b"],
  ["\f", "\\f"],
]);

function quoteJSON(s: string, escapeHTML: boolean): string {
  let out = '"';
  for (const ch of s) out += escapeJSONChar(ch, escapeHTML);
  return out + '"';
}

/** One character as Go's encoder writes it inside a string. */
function escapeJSONChar(ch: string, escapeHTML: boolean): string {
  const short = SHORT_ESCAPES.get(ch);
  if (short !== undefined) return short;
  const c = ch.codePointAt(0)!;
  if (c < 0x20) return "\\u00" + c.toString(16).padStart(2, "0");
  if (escapeHTML && (ch === "<" || ch === ">" || ch === "&")) return "\\u00" + c.toString(16);
  if (c === 0x2028 || c === 0x2029) return "\\u" + c.toString(16);
  if (c >= 0xd800 && c < 0xe000) return "\\ufffd";
  return ch;
}

function numberJSON(x: number): string {
  if (!Number.isFinite(x)) throw new GoFuncError(`json: unsupported value: ${Number.isNaN(x) ? "NaN" : x > 0 ? "+Inf" : "-Inf"}`);
  return Object.is(x, -0) ? "-0" : String(x);
}

/** json.Marshal / MarshalIndent(v, "", indent) / Encoder without HTML escaping. */
export function marshal(v: GoValue, escapeHTML = true, indent = "", depth = 0): string {
  const scalar = marshalScalar(v, escapeHTML);
  if (scalar !== undefined) return scalar;
  const nl = indent ? "\n" + indent.repeat(depth + 1) : "";
  const end = indent ? "\n" + indent.repeat(depth) : "";
  const sep = indent ? ": " : ":";
  if (Array.isArray(v)) {
    if (v.length === 0) return "[]";
    return "[" + v.map((e) => nl + marshal(e, escapeHTML, indent, depth + 1)).join(",") + end + "]";
  }
  const m = v as GoMap;
  const keys = sortedKeys(m);
  if (keys.length === 0) return "{}";
  return "{" + keys.map((k) => nl + quoteJSON(k, escapeHTML) + sep + marshal(m[k], escapeHTML, indent, depth + 1)).join(",") + end + "}";
}

/** A value that is not a slice or map, marshalled; undefined for slices and maps. */
function marshalScalar(v: GoValue, escapeHTML: boolean): string | undefined {
  if (v === undefined || v === null) return "null";
  switch (typeof v) {
    case "string":
      return quoteJSON(v, escapeHTML);
    case "number":
      return numberJSON(v);
    case "boolean":
      return String(v);
  }
  if (v instanceof GoInt) return v.v.toString();
  if (isSpecial(v)) {
    const j = (v as { toJSONValue?: () => string }).toJSONValue?.();
    return quoteJSON(j ?? v.goString?.() ?? "", escapeHTML);
  }
  return undefined;
}

/** Converts JSON.parse output into Go values (numbers are float64; nested maps and slices). */
export function fromJSValue(v: unknown): GoValue {
  if (v === null) return null;
  if (Array.isArray(v)) return v.map(fromJSValue);
  if (typeof v === "object") {
    const out: GoMap = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[k] = fromJSValue(x);
    return out;
  }
  return v as GoValue;
}

/** json.Unmarshal into interface{}; throws Go's error text. */
export function unmarshal(s: string): GoValue {
  try {
    return fromJSValue(JSON.parse(s));
  } catch {
    throw new GoFuncError(jsonSyntaxError(s) ?? "unexpected end of JSON input");
  }
}
