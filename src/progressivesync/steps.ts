/**
 * RollingSync step membership (docs/progressive-syncs.md#steps). An Application is selected by a
 * step when every `matchExpression` passes: with the label key present, `In` needs the value listed
 * and `NotIn` needs it absent, and any other operator fails and is reported; with the key absent,
 * `In` fails and every other operator passes (invalid ones unreported). A step without expressions
 * selects everything. An Application selected by several steps gates each of them but takes the
 * first as its status step; one selected by none has step "-1".
 */
import { UNASSIGNED_STEP, type RollingSyncStep } from "../api/index.js";

/** What step membership reads of an Application: its name and labels. */
export interface LabeledApp {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
}

/** An operator other than In/NotIn met on an Application that has the key (0-based step). */
export interface InvalidMatchExpression {
  readonly stepIndex: number;
  readonly operator: string;
}

/** Step membership of a set of Applications. */
export interface StepAssignment {
  /** Number of steps. */
  readonly stepCount: number;
  /** Per step (0-based), every Application the step selects, in input order: the gating lists. */
  readonly stepApps: readonly (readonly string[])[];
  /** Application → 0-based status step (its first matching step); unassigned names are absent. */
  readonly appStep: ReadonlyMap<string, number>;
  /** Invalid operators, once per step and operator, ordered by step then discovery. */
  readonly invalidMatchExpressions: readonly InvalidMatchExpression[];
  /** Application → every 0-based step selecting it, for Applications selected more than once. */
  readonly duplicateAppSelections: ReadonlyMap<string, readonly number[]>;
  /** 0-based steps that select no Application. */
  readonly emptySteps: readonly number[];
}

const IN = "In";
const NOT_IN = "NotIn";

/** Whether one step selects an app, and the invalid operator that stopped the match, if any. */
export function matchStep(
  step: RollingSyncStep,
  labels: Readonly<Record<string, string>>,
): { selected: boolean; invalidOperator?: string } {
  for (const expr of step.matchExpressions ?? []) {
    const operator = expr.operator ?? "";
    const key = expr.key ?? "";
    if (!Object.hasOwn(labels, key)) {
      if (operator === IN) return { selected: false };
      continue;
    }
    if (operator !== IN && operator !== NOT_IN) return { selected: false, invalidOperator: operator };
    const listed = (expr.values ?? []).includes(labels[key]!);
    if (listed !== (operator === IN)) return { selected: false };
  }
  return { selected: true };
}

/** Assigns Applications to steps. Pure; the result's issues feed {@link import("./validate.js")}. */
export function assignSteps(steps: readonly RollingSyncStep[], apps: readonly LabeledApp[]): StepAssignment {
  const stepApps: string[][] = steps.map(() => []);
  const appStep = new Map<string, number>();
  const invalid: InvalidMatchExpression[] = [];
  const selections = new Map<string, number[]>();
  for (const app of apps) {
    steps.forEach((step, i) => {
      const res = matchStep(step, app.labels);
      if (res.invalidOperator !== undefined && !invalid.some((x) => x.stepIndex === i && x.operator === res.invalidOperator)) {
        invalid.push({ stepIndex: i, operator: res.invalidOperator });
      }
      if (!res.selected) return;
      stepApps[i]!.push(app.name);
      if (!appStep.has(app.name)) appStep.set(app.name, i);
      selections.set(app.name, [...(selections.get(app.name) ?? []), i]);
    });
  }
  const duplicateAppSelections = new Map([...selections].filter(([, s]) => s.length > 1));
  invalid.sort((a, b) => a.stepIndex - b.stepIndex);
  const emptySteps = stepApps.flatMap((names, i) => (names.length === 0 ? [i] : []));
  return { stepCount: steps.length, stepApps, appStep, invalidMatchExpressions: invalid, duplicateAppSelections, emptySteps };
}

/** The `applicationStatus[].step` string of a 0-based step index: "1"-based, or "-1" when unassigned. */
export function stepLabel(stepIndex: number | undefined): string {
  return stepIndex === undefined ? UNASSIGNED_STEP : String(stepIndex + 1);
}

/** The 0-based index of an `applicationStatus[].step` string, or undefined for "-1" and garbage. */
export function stepIndexOf(label: string): number | undefined {
  const n = Number(label);
  return Number.isInteger(n) && n >= 1 ? n - 1 : undefined;
}

/** Reads the labels of an Application-like object; non-string values are ignored. */
export function labelsOf(metadata: { readonly labels?: unknown } | undefined): Record<string, string> {
  const raw = metadata?.labels;
  if (raw === null || typeof raw !== "object") return {};
  return Object.fromEntries(Object.entries(raw).filter((e): e is [string, string] => typeof e[1] === "string"));
}
