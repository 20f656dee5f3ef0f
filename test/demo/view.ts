/**
 * The demo's view model, pure: from what the cluster shows (the ApplicationSet and its Applications)
 * to rows per RollingSync step with counts, a progress bar, a frame for the terminal and, for plain
 * output, the lines that say what changed since the previous observation.
 */
import type { Application, ApplicationSet, RollingSyncStep } from "../../src/api/index.js";
import { labelsOf, matchStep } from "../../src/progressivesync/index.js";

/** What one look at the cluster found; `appSet` is undefined once the ApplicationSet is gone. */
export interface Observation {
  readonly appSet: ApplicationSet | undefined;
  readonly apps: readonly Application[];
}

/** The rollout status of one Application, plus the two deletion states the demo adds. */
export type RowStatus = "Waiting" | "Pending" | "Progressing" | "Healthy" | "Deleting" | "Deleted" | "Unknown";

/** One Application as the view shows it. */
export interface AppRow {
  readonly name: string;
  readonly status: RowStatus;
  readonly sync: string;
  readonly health: string;
  /** The rollout's message for the Application, or the Application's operation phase. */
  readonly detail: string;
}

/** One RollingSync step and its Applications. */
export interface StepView {
  /** 1-based, as `applicationStatus[].step` counts. */
  readonly index: number;
  /** The step's selector in words, such as `envLabel In (env-dev)`. */
  readonly selector: string;
  readonly maxUpdate: string | undefined;
  readonly apps: readonly AppRow[];
  readonly counts: Readonly<Record<RowStatus, number>>;
}

/** The whole picture at one moment. */
export interface View {
  readonly appSetName: string;
  readonly appSetPresent: boolean;
  /** The message of the RolloutProgressing condition (or empty). */
  readonly rollout: string;
  readonly steps: readonly StepView[];
  /** Applications no step selects. */
  readonly unassigned: readonly AppRow[];
  readonly total: number;
  readonly healthy: number;
  readonly deleted: number;
}

const STATUSES: readonly RowStatus[] = ["Waiting", "Pending", "Progressing", "Healthy", "Deleting", "Deleted", "Unknown"];

function zeroCounts(): Record<RowStatus, number> {
  return Object.fromEntries(STATUSES.map((s) => [s, 0])) as Record<RowStatus, number>;
}

function selectorText(step: RollingSyncStep): string {
  return (step.matchExpressions ?? []).map((e) => `${e.key ?? ""} ${e.operator ?? ""} (${(e.values ?? []).join(", ")})`).join(", ");
}

function rowOf(app: Application, entry: { status: string } | undefined, before: RowStatus | undefined): AppRow {
  const recorded = entry?.status ?? before;
  const known = STATUSES.includes(recorded as RowStatus) ? (recorded as RowStatus) : "Unknown";
  const status: RowStatus = app.metadata.deletionTimestamp != null ? "Deleting" : known;
  const phase = app.status?.operationState?.phase;
  return {
    name: app.metadata.name ?? "",
    status,
    sync: app.status?.sync?.status ?? "-",
    health: app.status?.health?.status ?? "-",
    detail: phase !== undefined ? `sync ${phase}` : "",
  };
}

function stepOf(app: Application, steps: readonly RollingSyncStep[], recorded: string | undefined, before: number | undefined): number {
  const n = Number(recorded);
  if (recorded !== undefined && Number.isInteger(n) && n >= 1 && n <= steps.length) return n;
  if (before !== undefined) return before;
  const idx = steps.findIndex((s) => matchStep(s, labelsOf(app.metadata)).selected);
  return idx < 0 ? 0 : idx + 1;
}

/** Where the previous view placed each Application (step index, 0 for none). */
function placement(prev: View | undefined): Map<string, { step: number; status: RowStatus }> {
  const out = new Map<string, { step: number; status: RowStatus }>();
  for (const s of prev?.steps ?? []) for (const r of s.apps) out.set(r.name, { step: s.index, status: r.status });
  for (const r of prev?.unassigned ?? []) out.set(r.name, { step: 0, status: r.status });
  return out;
}

/** Places each observed Application in its step (0: none) and turns it into a row. */
function placeApps(obs: Observation, steps: readonly RollingSyncStep[], prev: View | undefined): Map<number, AppRow[]> {
  const entries = new Map((obs.appSet?.status?.applicationStatus ?? []).map((e) => [e.application, e]));
  const before = placement(prev);
  const byStep = new Map<number, AppRow[]>();
  for (const app of [...obs.apps].sort((a, b) => (a.metadata.name ?? "").localeCompare(b.metadata.name ?? ""))) {
    const name = app.metadata.name ?? "";
    const entry = entries.get(name);
    const old = before.get(name);
    const step = stepOf(app, steps, entry?.step, old?.step);
    byStep.set(step, [...(byStep.get(step) ?? []), rowOf(app, entry, old?.status)]);
  }
  return byStep;
}

/** Rows of the previous view that are no longer observed become Deleted (kept, so the deletion order stays visible). */
function withGone(rows: readonly AppRow[], previous: readonly AppRow[] | undefined): AppRow[] {
  const seen = new Set(rows.map((r) => r.name));
  const gone = (previous ?? [])
    .filter((r) => !seen.has(r.name))
    .map((r) => ({ ...r, status: "Deleted" as const, sync: "-", health: "-", detail: "" }));
  return [...rows, ...gone].sort((a, b) => a.name.localeCompare(b.name));
}

function countOf(rows: readonly AppRow[]): Record<RowStatus, number> {
  const counts = zeroCounts();
  for (const r of rows) counts[r.status] += 1;
  return counts;
}

/**
 * The view after `obs`, given the previous view (so that Applications that disappeared are shown as
 * Deleted, and the steps stay known once the ApplicationSet is gone).
 */
export function nextView(prev: View | undefined, obs: Observation, appSetName: string): View {
  const specSteps = obs.appSet?.spec.strategy?.rollingSync?.steps;
  const byStep = placeApps(obs, specSteps ?? [], prev);
  const skeleton =
    specSteps !== undefined
      ? specSteps.map((s, i) => ({
          index: i + 1,
          selector: selectorText(s),
          maxUpdate: s.maxUpdate === undefined ? undefined : String(s.maxUpdate),
        }))
      : (prev?.steps ?? []);
  const steps = skeleton.map((s) => {
    const apps = withGone(byStep.get(s.index) ?? [], prev?.steps.find((p) => p.index === s.index)?.apps);
    return { index: s.index, selector: s.selector, maxUpdate: s.maxUpdate, apps, counts: countOf(apps) };
  });
  const unassigned = withGone(byStep.get(0) ?? [], prev?.unassigned);
  const all = [...steps.flatMap((s) => s.apps), ...unassigned];
  // Until the controller has recorded a status for the Applications, its condition speaks of no rollout yet.
  const started = (obs.appSet?.status?.applicationStatus?.length ?? 0) > 0;
  const condition = started ? obs.appSet?.status?.conditions?.find((c) => c.type === "RolloutProgressing") : undefined;
  return {
    appSetName,
    appSetPresent: obs.appSet !== undefined,
    rollout: condition?.message ?? (obs.appSet === undefined ? "" : (prev?.rollout ?? "")),
    steps,
    unassigned,
    total: all.length,
    healthy: all.filter((r) => r.status === "Healthy").length,
    deleted: all.filter((r) => r.status === "Deleted").length,
  };
}

/** True when every Application of the view is Healthy (and there is at least one). */
export function rolloutComplete(view: View): boolean {
  return view.total > 0 && view.healthy === view.total;
}

/** The step whose Applications are all Waiting while every earlier step is Healthy: the one a person must sync. */
export function stepAwaitingManualSync(view: View): StepView | undefined {
  for (const step of view.steps) {
    if (step.apps.length === 0) continue;
    if (step.counts.Healthy === step.apps.length) continue;
    return step.maxUpdate === "0" && step.counts.Waiting === step.apps.length ? step : undefined;
  }
  return undefined;
}

/** A progress bar of `width` cells: `[#####-----]` with `done` of `total` filled. */
export function progressBar(
  done: number,
  total: number,
  width: number,
  cells: { full: string; empty: string } = { full: "#", empty: "-" },
): string {
  const ratio = total <= 0 ? 0 : Math.min(1, Math.max(0, done / total));
  const filled = Math.round(ratio * width);
  return `[${cells.full.repeat(filled)}${cells.empty.repeat(width - filled)}]`;
}
