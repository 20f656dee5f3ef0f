/**
 * The ApplicationSet deletion path (docs/controller.md#deleting-an-applicationset): when the policy
 * forbids deleting Applications their owner references are stripped so garbage collection leaves
 * them alone. With `deletionOrder: Reverse` the Applications are then deleted one at a time, last
 * step first (decided by `nextReverseDeletion` of `src/progressivesync`), requeueing every 10 s.
 * Finally the ApplicationSet's `resources-finalizer.argocd.argoproj.io` is removed. No generation
 * and no status work. Pure.
 */
import { removeFinalizerPatch } from "./appset-patches.js";
import { deletionReversed, nextReverseDeletion, REVERSE_DELETION_REQUEUE_MS } from "../progressivesync/index.js";
import { allowsDelete, effectivePolicy } from "./policy.js";
import { EMPTY_PLAN, type Plan } from "./plan-types.js";
import type { AppSetSnapshot, PlanSettings } from "./snapshot.js";

/**
 * The next Reverse deletion step, or undefined when there is none (not Reverse, the policy keeps the
 * Applications, or every ordered Application is gone). Runs whether or not progressive syncs are enabled.
 */
function reverseDeletion(s: AppSetSnapshot, now: number): Plan | undefined {
  if (!deletionReversed(s.appSet)) return undefined;
  const step = nextReverseDeletion({ appSet: s.appSet, current: s.owned, now });
  const uidOf = (name: string): string | undefined => s.owned.find((a) => a.metadata.name === name)?.metadata.uid;
  switch (step.kind) {
    case "done":
      return undefined;
    case "delete": {
      const uid = uidOf(step.application);
      const del = { name: step.application, delete: true, ...(uid !== undefined ? { uid } : {}) };
      return { ...EMPTY_PLAN, deletes: [del], requeueAfterMs: step.requeueAfterMs };
    }
    case "wait":
      return { ...EMPTY_PLAN, requeueAfterMs: step.requeueAfterMs };
    case "verifyLive": {
      const deletionCheck = { name: step.application, ...(step.uid !== undefined ? { uid: step.uid } : {}) };
      return { ...EMPTY_PLAN, deletionCheck, requeueAfterMs: REVERSE_DELETION_REQUEUE_MS };
    }
  }
}

/** The plan for an ApplicationSet whose deletionTimestamp is set. */
export function planAppSetDeletion(s: AppSetSnapshot, now: number, settings: PlanSettings): Plan {
  const policy = effectivePolicy(s.appSet, settings);
  const ownerStrips = allowsDelete(policy)
    ? []
    : s.owned
        .filter((a) => (a.metadata.ownerReferences ?? []).length > 0)
        .map((a) => ({ name: a.metadata.name ?? "", resourceVersion: a.metadata.resourceVersion }));
  const reverse = allowsDelete(policy) ? reverseDeletion(s, now) : undefined;
  if (reverse !== undefined) return reverse;
  const appSetPatch = removeFinalizerPatch(s.appSet);
  return { ...EMPTY_PLAN, ownerStrips, ...(appSetPatch ? { appSetPatch } : {}) };
}
