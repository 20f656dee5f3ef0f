/**
 * The paths a jq path expression of `ignoreApplicationDifferences` selects in a document, for the
 * forms Argo CD's documentation uses beyond plain paths: pipes, `[]` over a list, and
 * `select(PATH == LITERAL)` / `!=`, e.g. `.spec.sources[] | select(.repoURL == "…") | .targetRevision`.
 * Undefined for anything else (the rule then ignores nothing). Pure.
 */
import type { Json } from "./json.js";

type Token = { readonly key: string } | { readonly each: true };
type Segment =
  | { readonly chain: readonly Token[] }
  | { readonly select: { readonly chain: readonly Token[]; readonly op: "==" | "!="; readonly value: Json } };

const TOKEN = /\.([A-Za-z_][\w-]*)|\.?\["((?:[^"\\]|\\.)*)"\]|\.?"((?:[^"\\]|\\.)*)"|\.?\[(\d+)\]|\.?\[\]|\./y;

function chain(text: string): Token[] | undefined {
  const out: Token[] = [];
  const t = text.trim();
  let pos = 0;
  while (pos < t.length) {
    TOKEN.lastIndex = pos;
    const m = TOKEN.exec(t);
    if (m === null) return undefined;
    if (m[1] !== undefined) out.push({ key: m[1] });
    else if (m[2] !== undefined || m[3] !== undefined) out.push({ key: JSON.parse(`"${m[2] ?? m[3] ?? ""}"`) as string });
    else if (m[4] !== undefined) out.push({ key: m[4] });
    else if (m[0].endsWith("[]")) out.push({ each: true });
    pos = TOKEN.lastIndex;
  }
  return out;
}

/** Splits at top-level `|` (outside quotes and parentheses). */
function pipeline(expr: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < expr.length; i++) {
    const c = expr[i];
    if (quoted) {
      if (c === "\\") i++;
      else if (c === '"') quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (c === "|" && depth === 0) {
      parts.push(expr.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(expr.slice(start));
  return parts.map((p) => p.trim());
}

function segment(text: string): Segment | undefined {
  const sel = /^select\((.*)\)$/s.exec(text);
  if (sel === null) {
    const c = chain(text);
    return c === undefined ? undefined : { chain: c };
  }
  const cond = /^(.*?)\s*(==|!=)\s*(.*)$/s.exec(sel[1]!.trim());
  if (cond === null) return undefined;
  const c = chain(cond[1]!);
  if (c === undefined) return undefined;
  let value: Json;
  try {
    value = JSON.parse(cond[3]!) as Json;
  } catch {
    return undefined;
  }
  return { select: { chain: c, op: cond[2] as "==" | "!=", value } };
}

type Item = { readonly v: Json | undefined; readonly p: readonly string[] };

function step(items: readonly Item[], t: Token): Item[] {
  return items.flatMap((it): Item[] => {
    const v = it.v;
    if ("each" in t) {
      if (Array.isArray(v)) return v.map((x, i) => ({ v: x, p: [...it.p, String(i)] }));
      if (v !== null && typeof v === "object") return Object.entries(v).map(([k, x]) => ({ v: x, p: [...it.p, k] }));
      return [];
    }
    const next = Array.isArray(v) ? v[Number(t.key)] : v !== null && typeof v === "object" ? (v as Record<string, Json>)[t.key] : undefined;
    return [{ v: next, p: [...it.p, t.key] }];
  });
}

const walk = (items: readonly Item[], c: readonly Token[]): Item[] => c.reduce<Item[]>((acc, t) => step(acc, t), [...items]);

/** Path tokens of a plain jq path (`.spec.a["b"][0]`); undefined for anything more (pipes, `[]`, functions). */
export function jqPathTokens(expr: string): string[] | undefined {
  const c = chain(expr);
  if (c === undefined || c.length === 0 || c.some((t) => "each" in t)) return undefined;
  return c.map((t) => ("key" in t ? t.key : ""));
}

const CLOSER: Readonly<Record<string, string>> = { "(": ")", "[": "]", "{": "}" };

/**
 * The parse error gojq reports for `del(EXPR)` (how Argo CD compiles an ignore rule's expression)
 * when its brackets do not pair up or a string is not closed: `unexpected token ")"`,
 * `unexpected EOF`, `unterminated string literal`. Undefined otherwise: other syntax errors are
 * not detected here (such an expression is merely one this module does not evaluate).
 */
export function jqSyntaxError(expr: string): string | undefined {
  const query = `del(${expr})`;
  const open: string[] = [];
  for (let i = 0; i < query.length; i++) {
    const c = query[i]!;
    if (c === '"') {
      i = closingQuote(query, i);
      if (i < 0) return "unterminated string literal";
    } else if (c === "#") {
      const end = query.indexOf("\n", i);
      if (end < 0) return "unexpected EOF";
      i = end;
    } else if (CLOSER[c] !== undefined) open.push(CLOSER[c]);
    else if (c === ")" || c === "]" || c === "}") {
      if (open.pop() !== c) return `unexpected token ${JSON.stringify(c)}`;
    }
  }
  return open.length > 0 ? "unexpected EOF" : undefined;
}

/** The index of the quote closing the string opened at `start`, or -1. */
function closingQuote(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === '"') return i;
  }
  return -1;
}

/** True when `expr` is a form this module evaluates (a plain path, or pipes of paths, `[]` and `select`). */
export function jqSupported(expr: string): boolean {
  if (jqPathTokens(expr) !== undefined) return true;
  const segments = pipeline(expr).map(segment);
  return segments.length > 0 && segments.every((s) => s !== undefined);
}

/** The existing fields `expr` selects in `doc`, as path tokens; undefined when the expression is not supported. */
export function jqSelectPaths(expr: string, doc: Json): string[][] | undefined {
  const segments = pipeline(expr).map(segment);
  if (segments.length === 0 || segments.some((s) => s === undefined)) return undefined;
  let items: Item[] = [{ v: doc, p: [] }];
  for (const s of segments as Segment[]) {
    if ("chain" in s) items = walk(items, s.chain);
    else {
      const { chain: c, op, value } = s.select;
      items = items.filter((it) =>
        walk([{ v: it.v, p: [] }], c).some((r) => (JSON.stringify(r.v ?? null) === JSON.stringify(value)) === (op === "==")),
      );
    }
  }
  return items.filter((it) => it.v !== undefined && it.p.length > 0).map((it) => [...it.p]);
}

/** Removes the field at `path` from `doc` (in place); absent paths change nothing. */
export function deletePath(doc: Json, path: readonly string[]): void {
  let cur: Json | undefined = doc;
  for (const k of path.slice(0, -1)) {
    cur = Array.isArray(cur) ? cur[Number(k)] : cur !== null && typeof cur === "object" ? (cur as Record<string, Json>)[k] : undefined;
    if (cur === undefined) return;
  }
  const last = path[path.length - 1]!;
  if (cur !== null && typeof cur === "object" && !Array.isArray(cur)) delete (cur as Record<string, Json>)[last];
}
