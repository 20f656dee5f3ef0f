/**
 * Which Applications move forward in a pass (docs/progressive-syncs.md#promotion): wave gating,
 * maxUpdate budgets, the sync to write and the `RolloutProgressing` condition. The eligible set
 * walks the steps in order and stops after the first step with an Application that is missing, has
 * no entry, or is not Healthy. Phase B promotes eligible Waiting Applications in name order while
 * their step's budget allows. A sync operation is attached to an eligible Pending Application
 * (in the pass that promotes it), pinned to the revisions its entry recorded (seed), so a commit
 * that lands mid-rollout cannot change what an unblocked step deploys.
 */
import {
  ConditionMessage,
  ConditionStatus,
  ConditionType,
  Reason,
  RollingSyncOperation,
  RollingSyncStatus,
  rolloutStepMessage,
  type ApplicationSetCondition,
  type Operation,
  type RollingSyncStep,
} from "../api/index.js";
import { rfc3339 } from "../clock/index.js";
import { maxUpdateLimit, parseMaxUpdate } from "./budget.js";
import { promote, type AppStatusEntry } from "./machine.js";
import { stepIndexOf, type StepAssignment } from "./steps.js";

/**
 * Names whose step is unblocked: every Application of step 1, and of each following step while
 * every Application of the previous one exists, has an entry and is Healthy.
 */
export function eligibleApps(
  assignment: StepAssignment,
  entries: ReadonlyMap<string, AppStatusEntry>,
  existing: ReadonlySet<string>,
): Set<string> {
  const eligible = new Set<string>();
  for (const names of assignment.stepApps) {
    names.forEach((n) => eligible.add(n));
    const complete = names.every((n) => existing.has(n) && entries.get(n)?.status === RollingSyncStatus.Healthy);
    if (!complete) break;
  }
  return eligible;
}

/** Per step (0-based): the number of entries and how many of them are Pending or Progressing. */
export function stepCounts(entries: readonly AppStatusEntry[], stepCount: number): { total: number[]; updating: number[] } {
  const total = new Array<number>(stepCount).fill(0);
  const updating = new Array<number>(stepCount).fill(0);
  for (const e of entries) {
    const i = stepIndexOf(e.step);
    if (i === undefined || i >= stepCount) continue;
    total[i]!++;
    if (e.status === RollingSyncStatus.Pending || e.status === RollingSyncStatus.Progressing) updating[i]!++;
  }
  return { total, updating };
}

/** The per-step limits for these entries (Infinity = none). */
export function stepLimits(steps: readonly RollingSyncStep[], entries: readonly AppStatusEntry[]): number[] {
  const { total } = stepCounts(entries, steps.length);
  return steps.map((s, i) => maxUpdateLimit(parseMaxUpdate(s.maxUpdate), total[i]!));
}

/** What {@link promoteWaiting} reads. */
export interface PromoteInput {
  readonly steps: readonly RollingSyncStep[];
  /** Entries after Phase A, sorted by name. */
  readonly entries: readonly AppStatusEntry[];
  readonly eligible: ReadonlySet<string>;
  /** Names that may be promoted at all (reconciled, not terminating, spec not about to change). */
  readonly ready: ReadonlySet<string>;
  readonly now: number;
}

/** Phase B: promotes eligible, ready Waiting entries in name order within each step's budget. */
export function promoteWaiting(input: PromoteInput): { entries: AppStatusEntry[]; promoted: string[] } {
  const { updating } = stepCounts(input.entries, input.steps.length);
  const limits = stepLimits(input.steps, input.entries);
  const promoted: string[] = [];
  const entries = input.entries.map((e) => {
    const i = stepIndexOf(e.step);
    if (i === undefined || i >= input.steps.length) return e;
    if (e.status !== RollingSyncStatus.Waiting || !input.eligible.has(e.application) || !input.ready.has(e.application)) return e;
    if (updating[i]! >= limits[i]!) return e;
    updating[i]!++;
    promoted.push(e.application);
    return promote(e, input.now);
  });
  return { entries, promoted };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** Whether a spec deploys several sources (then `sync.revisions` is pinned instead of `sync.revision`). */
function isMultiSource(spec: Record<string, unknown>): boolean {
  return Array.isArray(spec["sources"]) && spec["sources"].length > 0;
}

/**
 * The sync Operation RollingSync attaches (docs/progressive-syncs.md#the-sync-operation), pinned to
 * `revisions` when any are known.
 * `prune` is the template's `automated.prune` when the template enabled autosync; prune and
 * syncOptions are set only when the spec has a `syncPolicy`; retry defaults to `{limit: 5}`.
 */
export function syncOperation(spec: unknown, revisions: readonly string[], prune: boolean): Operation {
  const s = isRecord(spec) ? spec : {};
  const policy = isRecord(s["syncPolicy"]) ? s["syncPolicy"] : undefined;
  const pin = revisions.length === 0 ? {} : isMultiSource(s) ? { revisions: [...revisions] } : { revision: revisions[0]! };
  const options = Array.isArray(policy?.["syncOptions"]) ? { syncOptions: policy["syncOptions"] as string[] } : {};
  const retry = isRecord(policy?.["retry"]) ? (policy["retry"] as Operation["retry"]) : { limit: RollingSyncOperation.defaultRetryLimit };
  return {
    initiatedBy: { username: RollingSyncOperation.username, automated: true },
    info: [{ name: RollingSyncOperation.infoName, value: RollingSyncOperation.infoValue }],
    sync: { ...pin, ...(policy ? { prune, ...options } : {}) },
    retry,
  };
}

/**
 * `RolloutProgressing` (docs/progressive-syncs.md#rollout-conditions): True for the first step,
 * "1".."N", with an entry that is not Healthy; False "ApplicationSet Rollout has completed" when
 * there is none. Unassigned entries ("-1") are ignored.
 */
export function progressingCondition(entries: readonly AppStatusEntry[], stepCount: number, now: number): ApplicationSetCondition {
  const time = rfc3339(now);
  for (let i = 0; i < stepCount; i++) {
    const label = String(i + 1);
    if (entries.some((e) => e.step === label && e.status !== RollingSyncStatus.Healthy)) {
      return {
        type: ConditionType.RolloutProgressing,
        status: ConditionStatus.True,
        reason: Reason.ApplicationSetModified,
        message: rolloutStepMessage(label),
        lastTransitionTime: time,
      };
    }
  }
  return {
    type: ConditionType.RolloutProgressing,
    status: ConditionStatus.False,
    reason: Reason.ApplicationSetRolloutComplete,
    message: ConditionMessage.RolloutComplete,
    lastTransitionTime: time,
  };
}
