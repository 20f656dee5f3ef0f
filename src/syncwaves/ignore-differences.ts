/**
 * `spec.ignoreDifferences` (docs/sync-engine.md#comparison-and-status): the fields of a resource
 * the comparison leaves out, by JSON pointer or jq path, and what `RespectIgnoreDifferences=true`
 * applies instead of them (the live values). Pure.
 *
 * A rule applies to an object when its group and kind match (as globs, Argo CD's `glob.Match`: `*`
 * matches any) and its name and namespace, when given, match. The same rules carry the
 * system-level ones of `argocd-cm`. A rule's `managedFieldsManagers` leave out the fields those
 * managers own in the live object (managed-fields.ts).
 */
import type { ResourceIgnoreDifferences } from "../api/index.js";
import { deletePath, jqSelectPaths } from "../json/index.js";
import { getPath, pointerTokens, setPath, type Json, type JsonObject } from "../json/index.js";
import type { KubeObject } from "../kube/index.js";
import { globMatch } from "./customizations/index.js";
import { managedFieldSets, withoutManagedFields } from "./managed-fields.js";
import { groupOf } from "./objects.js";

const matches = (pattern: string | undefined, value: string): boolean => pattern === undefined || globMatch(pattern, value);

/** The rules that apply to `obj`. */
export function rulesFor(rules: readonly ResourceIgnoreDifferences[], obj: KubeObject): ResourceIgnoreDifferences[] {
  return rules.filter(
    (r) =>
      matches(r.group ?? "", groupOf(obj)) &&
      matches(r.kind, obj.kind ?? "") &&
      (!r.name || r.name === obj.metadata?.name) &&
      (!r.namespace || r.namespace === obj.metadata?.namespace),
  );
}

/** The paths the rules select in `doc` (pointers whether or not they exist; jq paths that exist). */
export function ignoredPaths(rules: readonly ResourceIgnoreDifferences[], doc: KubeObject): string[][] {
  const out: string[][] = [];
  for (const r of rules) {
    for (const p of r.jsonPointers ?? []) {
      const tokens = pointerTokens(p);
      if (tokens !== undefined && tokens.length > 0) out.push(tokens);
    }
    for (const e of r.jqPathExpressions ?? []) out.push(...(jqSelectPaths(e, doc as Json) ?? []));
  }
  return out;
}

/**
 * `obj` without the fields the rules ignore (a copy). `live` is the live object whose managed
 * fields the rules' `managedFieldsManagers` are looked up in (the same for both sides of a comparison).
 */
export function withoutIgnored(obj: KubeObject, rules: readonly ResourceIgnoreDifferences[], live?: KubeObject): KubeObject {
  const mine = rulesFor(rules, obj);
  if (mine.length === 0) return obj;
  const managers = mine.flatMap((r) => r.managedFieldsManagers ?? []);
  const copy = withoutManagedFields(structuredClone(obj), managedFieldSets(live, managers));
  for (const p of ignoredPaths(mine, obj)) deletePath(copy as Json, p);
  return copy;
}

/**
 * The object a sync with `RespectIgnoreDifferences=true` writes: each ignored field takes its live
 * value, or is left out when the live object lacks it. A new object (no live one) is written as
 * desired.
 */
export function respectIgnored(desired: KubeObject, live: KubeObject | undefined, rules: readonly ResourceIgnoreDifferences[]): KubeObject {
  const mine = rulesFor(rules, desired);
  if (live === undefined || mine.length === 0) return desired;
  const copy = structuredClone(desired) as JsonObject;
  for (const p of [...ignoredPaths(mine, desired), ...ignoredPaths(mine, live)]) {
    const v = getPath(live as Json, p);
    if (v === undefined) deletePath(copy, p);
    else if (getPath(copy, p.slice(0, -1)) !== undefined) setPath(copy, p, structuredClone(v));
  }
  return copy;
}
