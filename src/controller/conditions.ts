/**
 * ApplicationSet conditions and health (docs/controller.md#conditions-and-health): one
 * {@link conditionFor} turns the outcome of a pass into the evaluated conditions,
 * {@link mergeConditions} applies Argo CD's writing rules (evaluated types replace, others stay,
 * unchanged conditions keep their transition time, sorted; messages cut to
 * {@link MAX_CONDITION_MESSAGE} characters), and {@link healthFor} derives `status.health`. Pure.
 */
import {
  AppSetHealth,
  ConditionMessage,
  ConditionStatus,
  ConditionType,
  Reason,
  type ApplicationSetCondition,
  type ApplicationSetHealth,
} from "../api/index.js";
import { boundText, MAX_CONDITION_MESSAGE } from "../bounded-text.js";

/** How a pass ended, as far as conditions are concerned. */
export type PassOutcome =
  | { readonly kind: "ok" }
  | {
      readonly kind: "error";
      readonly reason: Reason;
      readonly message: string;
      /** True when parameters were generated (validation and write errors); false for generation errors. */
      readonly paramsGenerated: boolean;
    };

/** A condition before it is given a transition time. */
export interface ConditionInput {
  readonly type: string;
  readonly status: string;
  readonly reason: string;
  readonly message: string;
}

/** The condition types Argo CD re-evaluates on every write when the ApplicationSet is not RollingSync. */
const ROLLOUT_TYPES: readonly string[] = [ConditionType.RolloutProgressing, ConditionType.InvalidRolloutConfig];

function cond(type: string, status: string, reason: string, message: string): ConditionInput {
  return { type, status, reason, message };
}

/**
 * The conditions a pass evaluates: success gives ResourcesUpToDate=True, the derived ErrorOccurred=False
 * (same reason and message) and ParametersGenerated=True; an error gives ErrorOccurred=True, the derived
 * ResourcesUpToDate=False (reason ErrorOccurred, same message) and the synthesized ParametersGenerated.
 */
export function conditionFor(outcome: PassOutcome): ConditionInput[] {
  const paramsOk = cond(
    ConditionType.ParametersGenerated,
    ConditionStatus.True,
    Reason.ParametersGenerated,
    ConditionMessage.ParametersGenerated,
  );
  if (outcome.kind === "ok") {
    const msg = ConditionMessage.AllApplicationsGenerated;
    return [
      cond(ConditionType.ResourcesUpToDate, ConditionStatus.True, Reason.ApplicationSetUpToDate, msg),
      cond(ConditionType.ErrorOccurred, ConditionStatus.False, Reason.ApplicationSetUpToDate, msg),
      paramsOk,
    ];
  }
  const params = outcome.paramsGenerated
    ? paramsOk
    : cond(ConditionType.ParametersGenerated, ConditionStatus.False, Reason.ErrorOccurred, outcome.message);
  return [
    cond(ConditionType.ErrorOccurred, ConditionStatus.True, outcome.reason, outcome.message),
    cond(ConditionType.ResourcesUpToDate, ConditionStatus.False, Reason.ErrorOccurred, outcome.message),
    params,
  ];
}

function sameCondition(a: ConditionInput, b: ConditionInput): boolean {
  return a.type === b.type && a.status === b.status && a.reason === b.reason && a.message === b.message;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Argo CD's order: type, then status, reason, message, time. */
export function sortConditions(list: ApplicationSetCondition[]): ApplicationSetCondition[] {
  return list.sort(
    (a, b) =>
      compare(a.type, b.type) ||
      compare(a.status, b.status) ||
      compare(a.reason, b.reason) ||
      compare(a.message, b.message) ||
      compare(a.lastTransitionTime ?? "", b.lastTransitionTime ?? ""),
  );
}

/**
 * The new condition list: evaluated types replace existing ones (keeping the old transition time when
 * type, status, reason and message are unchanged), other existing conditions stay as they are, and the
 * rollout types are dropped unless the ApplicationSet is RollingSync. Sorted.
 */
export function mergeConditions(
  existing: readonly ApplicationSetCondition[],
  evaluated: readonly ConditionInput[],
  opts: { readonly now: string; readonly rollingSync: boolean },
): ApplicationSetCondition[] {
  const evaluatedTypes = new Set(evaluated.map((c) => c.type));
  if (!opts.rollingSync) for (const t of ROLLOUT_TYPES) evaluatedTypes.add(t);
  const kept = existing.filter((c) => !evaluatedTypes.has(c.type));
  const fresh = evaluated.map((given) => {
    const c = { ...given, message: boundText(given.message, MAX_CONDITION_MESSAGE) };
    const old = existing.find((e) => e.type === c.type);
    const time = old !== undefined && sameCondition(old, c) ? old.lastTransitionTime : opts.now;
    const out: ApplicationSetCondition = { ...c, lastTransitionTime: time ?? opts.now };
    return out;
  });
  return sortConditions([...kept.map((c) => ({ ...c })), ...fresh]);
}

/** True when both lists hold the same conditions in the same order (transition times ignored). */
export function conditionsEqual(a: readonly ConditionInput[], b: readonly ConditionInput[]): boolean {
  return a.length === b.length && a.every((c, i) => sameCondition(c, b[i]!));
}

/** `status.health` from the conditions: Degraded, else Progressing, else Healthy, else Unknown. */
export function healthFor(conditions: readonly ConditionInput[]): ApplicationSetHealth {
  if (conditions.length === 0) return { status: AppSetHealth.Unknown, message: ConditionMessage.NoStatusConditions };
  const find = (type: string): ConditionInput | undefined => conditions.find((c) => c.type === type && c.status === ConditionStatus.True);
  const rules: Array<[string, string]> = [
    [ConditionType.ErrorOccurred, AppSetHealth.Degraded],
    [ConditionType.RolloutProgressing, AppSetHealth.Progressing],
    [ConditionType.ResourcesUpToDate, AppSetHealth.Healthy],
  ];
  for (const [type, status] of rules) {
    const c = find(type);
    if (c !== undefined) return { status, message: c.message };
  }
  return { status: AppSetHealth.Unknown, message: ConditionMessage.WaitingForHealth };
}
