/**
 * `ignoreDifferences[].managedFieldsManagers` (docs/sync-engine.md#comparison-and-status): the
 * fields a listed field manager owns in the live object (its `metadata.managedFields[].fieldsV1`)
 * are left out of the comparison, on both sides, as Argo CD leaves them to that manager. Pure.
 *
 * A fieldsV1 set is a tree: `f:<name>` is a field of an object, `k:<json>` the list item whose key
 * fields have those values, `v:<json>` the item of a set-like list equal to the value, `i:<n>` the
 * item at an index, and `.` marks the node itself as owned. An owned leaf (a node with no children
 * but `.`) is removed; a node with children is descended into, so only what the manager owns goes.
 */
import { jsonEqual, type Json, type JsonObject } from "../json/index.js";
import type { KubeObject } from "../kube/index.js";

/** One manager's fieldsV1 set. */
export type FieldSet = { readonly [key: string]: FieldSet };

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** The fieldsV1 sets of the live object's managed fields entries whose manager is one of `managers`. */
export function managedFieldSets(live: KubeObject | undefined, managers: readonly string[]): FieldSet[] {
  if (live === undefined || managers.length === 0) return [];
  const entries = live.metadata?.managedFields;
  if (!Array.isArray(entries)) return [];
  const out: FieldSet[] = [];
  for (const e of entries as unknown[]) {
    if (!isRecord(e) || typeof e["manager"] !== "string" || !managers.includes(e["manager"])) continue;
    if (isRecord(e["fieldsV1"])) out.push(e["fieldsV1"] as FieldSet);
  }
  return out;
}

const isLeaf = (node: FieldSet): boolean => Object.keys(node).every((k) => k === ".");

/** The index of the list item a `k:`, `v:` or `i:` key names, or -1. */
function itemIndex(items: readonly Json[], key: string): number {
  let parsed: unknown;
  try {
    parsed = key.startsWith("i:") ? Number(key.slice(2)) : JSON.parse(key.slice(2));
  } catch {
    return -1;
  }
  if (key.startsWith("i:")) return Number.isInteger(parsed) && (parsed as number) < items.length ? (parsed as number) : -1;
  if (key.startsWith("v:")) return items.findIndex((item) => jsonEqual(item, parsed));
  if (!isRecord(parsed)) return -1;
  return items.findIndex((item) => isRecord(item) && Object.entries(parsed).every(([k, v]) => jsonEqual(item[k], v)));
}

function removeFromList(items: Json[], node: FieldSet): Json[] {
  const drop = new Set<number>();
  for (const [key, child] of Object.entries(node)) {
    if (!/^[kvi]:/.test(key)) continue;
    const i = itemIndex(items, key);
    if (i < 0) continue;
    if (isLeaf(child)) drop.add(i);
    else items[i] = remove(items[i]!, child);
  }
  return items.filter((_, i) => !drop.has(i));
}

function removeFromObject(obj: JsonObject, node: FieldSet): JsonObject {
  for (const [key, child] of Object.entries(node)) {
    if (!key.startsWith("f:")) continue;
    const name = key.slice(2);
    const value = obj[name];
    if (value === undefined) continue;
    if (isLeaf(child)) delete obj[name];
    else obj[name] = remove(value, child);
  }
  return obj;
}

function remove(value: Json, node: FieldSet): Json {
  if (Array.isArray(value)) return removeFromList(value, node);
  if (isRecord(value)) return removeFromObject(value, node);
  return value;
}

/** `obj` without the fields the sets own (a copy; `obj` itself when there are no sets). */
export function withoutManagedFields(obj: KubeObject, sets: readonly FieldSet[]): KubeObject {
  if (sets.length === 0) return obj;
  let copy = structuredClone(obj) as Json;
  for (const set of sets) copy = remove(copy, set);
  return copy as KubeObject;
}
