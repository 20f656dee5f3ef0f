/**
 * Client-side → server-side apply field migration (docs/sync-engine.md#deviations-from-argo-cd): an
 * object last written by `kubectl apply` (or by Argo CD's client-side apply) has its fields owned
 * by an `Update` manager, so a server-side apply that drops a field would leave it behind, co-owned.
 * Before the first server-side apply, the fields of that manager are handed to the apply manager,
 * as Kubernetes' `csaupgrade` does and Argo CD does before its server-side applies. Pure.
 */

/** One `metadata.managedFields` entry (the fields the migration reads; the rest is kept as it is). */
export interface ManagedFieldsEntry {
  readonly manager?: string;
  readonly operation?: string;
  readonly apiVersion?: string;
  readonly subresource?: string;
  readonly fieldsV1?: Record<string, unknown>;
  readonly [key: string]: unknown;
}

/** The manager Argo CD migrates from unless the Application's annotation names another. */
export const DEFAULT_CSA_MANAGER = "kubectl-client-side-apply";

type Trie = Record<string, unknown>;

const isTrie = (v: unknown): v is Trie => typeof v === "object" && v !== null && !Array.isArray(v);

/** The union of two `fieldsV1` sets: each is a trie of path elements, so the union merges them key by key. */
export function unionFields(a: Trie, b: Trie): Trie {
  const out: Trie = { ...a };
  for (const [key, value] of Object.entries(b)) {
    const mine = out[key];
    out[key] = isTrie(mine) && isTrie(value) ? unionFields(mine, value) : isTrie(mine) ? mine : value;
  }
  return out;
}

const isCsa = (e: ManagedFieldsEntry, csa: string): boolean => e.manager === csa && e.operation === "Update" && !e.subresource;

/** True when the entries hold fields of the client-side manager `csa` to migrate. */
export function needsMigration(entries: readonly ManagedFieldsEntry[] | undefined, csa: string): boolean {
  return (entries ?? []).some((e) => isCsa(e, csa));
}

/**
 * The managed fields after the migration, or undefined when nothing changes: the apply manager's
 * entry (or, when it has none, the newest entry of `csa` turned into it) takes the union of its
 * fields and those of `csa`'s entry of the same API version, and every `Update` entry of `csa` goes.
 */
export function upgradeManagedFields(
  entries: readonly ManagedFieldsEntry[] | undefined,
  csa: string,
  ssa: string,
): ManagedFieldsEntry[] | undefined {
  const list = [...(entries ?? [])];
  let target = list.findIndex((e) => e.manager === ssa && e.operation === "Apply" && !e.subresource);
  if (target < 0) {
    target = list.findIndex((e) => isCsa(e, csa));
    if (target < 0) return undefined;
    list[target] = { ...list[target], manager: ssa, operation: "Apply" };
  }
  const apply = list[target] ?? {};
  const source = list.find((e) => isCsa(e, csa) && e.apiVersion === apply.apiVersion);
  list[target] = { ...apply, fieldsV1: unionFields(apply.fieldsV1 ?? {}, source?.fieldsV1 ?? {}) };
  const out = list.filter((e) => !isCsa(e, csa));
  return JSON.stringify(out) === JSON.stringify(entries ?? []) ? undefined : out;
}
