/**
 * An offline preview of a RollingSync rollout, for `appset rollout plan`: each step with the
 * Applications it selects, the batches its maxUpdate allows when every Application needs an
 * update, the Applications in no step, the deletion order, and the validation issues. Pure.
 */
import type { ApplicationSet, ApplicationMatchExpression } from "../api/index.js";
import { batches, maxUpdateLimit, parseMaxUpdate } from "./budget.js";
import type { GeneratedAppView } from "./index.js";
import { disableAutosync } from "./observe.js";
import { assignSteps, labelsOf } from "./steps.js";
import { deletionReversed, isRollingSync, rollingSyncEnabled } from "./strategy.js";
import { allIssueMessages, collectIssues } from "./validate.js";

/** One step of the preview. */
export interface StepPreview {
  /** 1-based. */
  readonly step: number;
  readonly matchExpressions: readonly ApplicationMatchExpression[];
  /** `maxUpdate` as written, or null when unset. */
  readonly maxUpdate: string | number | null;
  /** How many may update at once, or null for no limit. */
  readonly limit: number | null;
  /** Every Application the step selects (it waits for all of them). */
  readonly selects: readonly string[];
  /** The Applications whose status step this is, which the step syncs. */
  readonly applications: readonly string[];
  /** The batches the controller syncs them in, in name order; empty when maxUpdate is 0. */
  readonly batches: readonly (readonly string[])[];
}

/** The whole preview. */
export interface RolloutPreview {
  readonly name: string;
  readonly strategy: "AllAtOnce" | "RollingSync";
  /** Set when there is nothing to preview (AllAtOnce, or RollingSync without steps). */
  readonly note: string | undefined;
  readonly steps: readonly StepPreview[];
  readonly unassigned: readonly string[];
  /** Deletion order under `deletionOrder: Reverse`, else null. */
  readonly deletionOrder: readonly string[] | null;
  readonly issues: readonly { readonly kind: string; readonly message: string }[];
  /** Applications whose template enables automated sync (RollingSync turns it off). */
  readonly autosyncTurnedOff: readonly string[];
}

const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Previews how a RollingSync ApplicationSet would roll out these generated Applications. */
export function previewRollout(appSet: ApplicationSet, desired: readonly GeneratedAppView[]): RolloutPreview {
  const name = appSet.metadata.name ?? "";
  const base = { name, steps: [], unassigned: [], deletionOrder: null, issues: [], autosyncTurnedOff: [] };
  if (!isRollingSync(appSet)) return { ...base, strategy: "AllAtOnce", note: "AllAtOnce: every Application is updated at once" };
  if (!rollingSyncEnabled(appSet)) return { ...base, strategy: "RollingSync", note: "No steps defined for rollout" };
  const steps = appSet.spec.strategy?.rollingSync?.steps ?? [];
  const names = desired.map((d) => d.metadata.name ?? "");
  const assignment = assignSteps(
    steps,
    desired.map((d, i) => ({ name: names[i]!, labels: labelsOf(d.metadata) })),
  );
  const owned = steps.map((_, i) => names.filter((n) => assignment.appStep.get(n) === i).sort(byName));
  const previews = steps.map((s, i): StepPreview => {
    const limit = maxUpdateLimit(parseMaxUpdate(s.maxUpdate), owned[i]!.length);
    return {
      step: i + 1,
      matchExpressions: s.matchExpressions ?? [],
      maxUpdate: s.maxUpdate ?? null,
      limit: Number.isFinite(limit) ? limit : null,
      selects: assignment.stepApps[i]!,
      applications: owned[i]!,
      batches: batches(owned[i]!, limit),
    };
  });
  return {
    ...base,
    strategy: "RollingSync",
    note: undefined,
    steps: previews,
    unassigned: names.filter((n) => !assignment.appStep.has(n)).sort(byName),
    deletionOrder: deletionReversed(appSet) ? [...owned].reverse().flat() : null,
    issues: allIssueMessages(collectIssues(steps, assignment)),
    autosyncTurnedOff: desired.filter((d) => disableAutosync(d.spec).autosyncWasEnabled).map((d) => d.metadata.name ?? ""),
  };
}
