/**
 * Matching of label-selector strings (the `labelSelector` query parameter syntax) against a label
 * map, for the in-memory fake: `k=v`, `k==v`, `k!=v`, `k`, `!k`, `k in (a,b)`, `k notin (a,b)`,
 * joined by commas.
 */

type Requirement = (labels: Readonly<Record<string, string>>) => boolean;

/** True when `labels` satisfies every requirement of `selector` (an empty selector matches all). */
export function matchesLabelSelector(selector: string, labels: Readonly<Record<string, string>>): boolean {
  return parseLabelSelector(selector).every((req) => req(labels));
}

/** Splits a selector into requirements; throws on syntax it does not understand. */
export function parseLabelSelector(selector: string): Requirement[] {
  return splitTopLevel(selector)
    .map((s) => s.trim())
    .filter((s) => s !== "")
    .map(parseRequirement);
}

function splitTopLevel(selector: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = "";
  for (const ch of selector) {
    if (ch === "(") depth++;
    if (ch === ")") depth--;
    if (ch === "," && depth === 0) {
      parts.push(current);
      current = "";
    } else {
      current += ch;
    }
  }
  parts.push(current);
  return parts;
}

const setPattern = /^([\w./-]+)\s+(in|notin)\s+\(([^)]*)\)$/;
const comparePattern = /^([\w./-]+)\s*(==|=|!=)\s*([\w./-]*)$/;
const existsPattern = /^(!?)([\w./-]+)$/;

function parseRequirement(text: string): Requirement {
  const set = setPattern.exec(text);
  if (set !== null) {
    const [, key = "", op, list = ""] = set;
    const values = new Set(list.split(",").map((v) => v.trim()));
    return op === "in" ? (l) => l[key] !== undefined && values.has(l[key]) : (l) => l[key] === undefined || !values.has(l[key]);
  }
  const cmp = comparePattern.exec(text);
  if (cmp !== null) {
    const [, key = "", op, value = ""] = cmp;
    return op === "!=" ? (l) => l[key] !== value : (l) => l[key] === value;
  }
  const exists = existsPattern.exec(text);
  if (exists !== null) {
    const [, bang, key = ""] = exists;
    return bang === "!" ? (l) => l[key] === undefined : (l) => l[key] !== undefined;
  }
  throw new Error(`unsupported label selector requirement: ${text}`);
}
