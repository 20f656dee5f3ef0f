/**
 * Label selectors over parameter sets (the post-selector of every generator entry,
 * docs/generators.md#common-to-every-generator) and over
 * cluster Secret labels (the Cluster generator). Both use metav1.LabelSelector semantics; the
 * post-selector parser is Argo CD's relaxed copy, which accepts any label *value* (URLs included).
 */
import type { LabelSelector } from "../api/index.js";
import { goQuote } from "../template/go/format.js";
import { flattenParams } from "./params.js";
import type { ParamSet } from "./types.js";

/** A compiled selector: true when the labels match. */
export type LabelMatcher = (labels: Readonly<Record<string, string>>) => boolean;

/** How strictly selector values are validated. */
export interface SelectorOptions {
  /** Validate values as Kubernetes label values (the Cluster generator); otherwise any string. */
  readonly strictValues: boolean;
  /** The operator error's wording: "pod" (post-selector) or "label" (Kubernetes). */
  readonly operatorNoun: "pod" | "label";
}

const NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** Validates a qualified name (`[prefix/]name`); returns the problem or undefined. */
function keyProblem(key: string): string | undefined {
  const parts = key.split("/");
  const name = parts.length === 2 ? parts[1]! : parts[0]!;
  const prefix = parts.length === 2 ? parts[0]! : undefined;
  if (parts.length > 2)
    return `key: Invalid value: ${goQuote(key)}: a qualified name must consist of alphanumeric characters, '-', '_' or '.'`;
  if (prefix !== undefined && (prefix.length === 0 || prefix.length > 253 || !DNS1123_SUBDOMAIN.test(prefix))) {
    return `key: Invalid value: ${goQuote(key)}: prefix part must be a DNS-1123 subdomain`;
  }
  if (name.length === 0 || name.length > 63 || !NAME.test(name)) {
    return `key: Invalid value: ${goQuote(key)}: name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`;
  }
  return undefined;
}

function valueProblem(value: string, strict: boolean): string | undefined {
  if (!strict || (value.length <= 63 && VALUE.test(value))) return undefined;
  return `values[0]: Invalid value: ${goQuote(value)}: a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`;
}

function requirement(key: string, operator: string, values: readonly string[], opts: SelectorOptions): LabelMatcher {
  const problem = keyProblem(key) ?? values.map((v) => valueProblem(v, opts.strictValues)).find((p) => p !== undefined);
  if (problem !== undefined) throw new Error(problem);
  const set = new Set(values);
  switch (operator) {
    case "In":
    case "NotIn":
      if (values.length === 0) throw new Error("values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty");
      return operator === "In" ? (l) => l[key] !== undefined && set.has(l[key]) : (l) => l[key] === undefined || !set.has(l[key]);
    case "Exists":
    case "DoesNotExist":
      if (values.length > 0) throw new Error("values: Invalid value: for 'exists', 'doesnotexist' operators, values set must be empty");
      return operator === "Exists" ? (l) => l[key] !== undefined : (l) => l[key] === undefined;
    default:
      throw new Error(`${goQuote(operator)} is not a valid ${opts.operatorNoun} selector operator`);
  }
}

/**
 * Compiles a LabelSelector. Undefined matches everything, as does `{}`. Throws an Error with the
 * Kubernetes message for an invalid key, value or operator.
 */
export function compileSelector(selector: LabelSelector | undefined, opts: SelectorOptions): LabelMatcher {
  if (selector === undefined) return () => true;
  const reqs: LabelMatcher[] = [];
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) reqs.push(requirement(k, "In", [v], opts));
  for (const e of selector.matchExpressions ?? []) reqs.push(requirement(e.key, e.operator, e.values ?? [], opts));
  return (labels) => reqs.every((r) => r(labels));
}

/** True when the selector has no requirement at all. */
export function isEmptySelector(selector: LabelSelector | undefined): boolean {
  return Object.keys(selector?.matchLabels ?? {}).length === 0 && (selector?.matchExpressions ?? []).length === 0;
}

/** The post-selector options (Argo CD's relaxed parser). */
export const POST_SELECTOR: SelectorOptions = { strictValues: false, operatorNoun: "pod" };

/** Keeps the parameter sets whose flattened form matches the selector. */
export function filterParams(params: readonly ParamSet[], matcher: LabelMatcher): ParamSet[] {
  return params.filter((p) => matcher(flattenParams(p)));
}
