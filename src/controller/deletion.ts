/**
 * The ApplicationSet deletion path (spec §4.6): when the policy forbids deleting Applications their
 * owner references are stripped so garbage collection leaves them alone; then the ApplicationSet's
 * `resources-finalizer.argocd.argoproj.io` is removed. No generation and no status work. Reverse
 * deletion (§5.10) belongs to Progressive Syncs and is not planned here. Pure.
 */
import { Finalizer } from "../api/index.js";
import { allowsDelete, effectivePolicy } from "./policy.js";
import { EMPTY_PLAN, type Plan } from "./plantypes.js";
import type { AppSetSnapshot, PlanSettings } from "./snapshot.js";

/** The plan for an ApplicationSet whose deletionTimestamp is set. */
export function planDeletion(s: AppSetSnapshot, settings: PlanSettings): Plan {
  const policy = effectivePolicy(s.appSet, settings);
  const ownerStrips = allowsDelete(policy)
    ? []
    : s.owned
        .filter((a) => (a.metadata.ownerReferences ?? []).length > 0)
        .map((a) => ({ name: a.metadata.name ?? "", resourceVersion: a.metadata.resourceVersion }));
  const finalizers = s.appSet.metadata.finalizers ?? [];
  const appSetPatch = finalizers.includes(Finalizer.Resources)
    ? { metadata: { finalizers: finalizers.filter((f) => f !== Finalizer.Resources), resourceVersion: s.appSet.metadata.resourceVersion ?? null } }
    : undefined;
  return { ...EMPTY_PLAN, ownerStrips, ...(appSetPatch ? { appSetPatch } : {}) };
}
