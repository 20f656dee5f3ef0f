/**
 * Turning a {@link View} into text, pure: the frame the terminal redraws (optionally coloured), the
 * lines plain output prints for what changed between two views, and the summary of phase timings.
 */
import { progressBar, type AppRow, type RowStatus, type StepView, type View } from "./view.js";

/** ANSI colour per status; identity when colour is off. */
export type Paint = (status: RowStatus | "dim" | "bold", text: string) => string;

const CODES: Record<RowStatus | "dim" | "bold", string> = {
  Waiting: "2",
  Pending: "36",
  Progressing: "33",
  Healthy: "32",
  Deleting: "31",
  Deleted: "2;9",
  Unknown: "35",
  dim: "2",
  bold: "1",
};

/** Paint with ANSI escapes. */
export const ansi: Paint = (status, text) => `\x1b[${CODES[status]}m${text}\x1b[0m`;
/** No colour. */
export const plain: Paint = (_status, text) => text;

const pad = (s: string, n: number): string => (s.length >= n ? s : s + " ".repeat(n - s.length));

function stepSummary(step: StepView): string {
  const n = step.apps.length;
  if (n > 0 && step.counts.Deleted === n) return "deleted";
  if (step.counts.Deleting > 0) return "deleting";
  if (n > 0 && step.counts.Healthy === n) return "done";
  if (step.maxUpdate === "0" && n > 0 && step.counts.Waiting === n) return "waiting for a manual sync (maxUpdate 0)";
  const active = step.counts.Pending + step.counts.Progressing;
  return active > 0 ? `${active} syncing` : "waiting";
}

function appLine(row: AppRow, nameWidth: number, paint: Paint): string {
  const status = paint(row.status, pad(row.status, 11));
  const detail = row.detail === "" ? "" : paint("dim", `  ${row.detail}`);
  return `    ${pad(row.name, nameWidth)}  ${status} ${pad(row.sync, 9)} ${pad(row.health, 11)}${detail}`;
}

/** The frame: a header with the overall bar, then each step with its bar and its Applications. */
export function renderFrame(view: View, opts: { paint: Paint; elapsedMs: number; barWidth?: number }): string[] {
  const { paint } = opts;
  const width = opts.barWidth ?? 24;
  const rows = [...view.steps.flatMap((s) => s.apps), ...view.unassigned];
  const nameWidth = Math.max(12, ...rows.map((r) => r.name.length));
  const deleting = view.deleted > 0 || rows.some((r) => r.status === "Deleting") || !view.appSetPresent;
  const [done, label] = deleting ? [view.deleted, "deleted"] : [view.healthy, "Healthy"];
  const lines = [
    `${paint("bold", `ApplicationSet ${view.appSetName}`)}  ${paint("dim", `${(opts.elapsedMs / 1000).toFixed(1)}s`)}  ${view.rollout}`,
    `  ${progressBar(done, view.total, width * 2)} ${done}/${view.total} ${label}`,
  ];
  for (const step of view.steps) {
    const max = step.maxUpdate === undefined ? "" : `  maxUpdate ${step.maxUpdate}`;
    const stepDone = deleting ? step.counts.Deleted : step.counts.Healthy;
    lines.push(`  ${paint("bold", `Step ${step.index}`)}  ${step.selector}${max}`);
    lines.push(`    ${progressBar(stepDone, step.apps.length, width)} ${stepDone}/${step.apps.length} ${label}  ${stepSummary(step)}`);
    for (const row of step.apps) lines.push(appLine(row, nameWidth, paint));
  }
  if (view.unassigned.length > 0) {
    lines.push(`  ${paint("bold", "No step")}  (synced by hand only)`);
    for (const row of view.unassigned) lines.push(appLine(row, nameWidth, paint));
  }
  return lines;
}

function rowsByName(view: View | undefined): Map<string, { row: AppRow; step: number }> {
  const out = new Map<string, { row: AppRow; step: number }>();
  for (const s of view?.steps ?? []) for (const row of s.apps) out.set(row.name, { row, step: s.index });
  for (const row of view?.unassigned ?? []) out.set(row.name, { row, step: 0 });
  return out;
}

/** What changed from `prev` to `next`, one line per change, in step then name order. */
export function changeLines(prev: View | undefined, next: View): string[] {
  const before = rowsByName(prev);
  const lines: string[] = [];
  for (const [name, { row, step }] of rowsByName(next)) {
    const old = before.get(name)?.row;
    const where = step === 0 ? "no step" : `step ${step}`;
    if (old === undefined) lines.push(`${where}  ${name}: ${row.status}`);
    else if (old.status !== row.status) lines.push(`${where}  ${name}: ${old.status} -> ${row.status}`);
  }
  if (next.rollout !== "" && next.rollout !== prev?.rollout) lines.push(`rollout  ${next.rollout}`);
  return lines;
}

/** One measured phase of the demo. */
export interface PhaseTiming {
  readonly name: string;
  readonly ms: number;
}

/** The closing summary: one line per phase and the total. */
export function renderSummary(phases: readonly PhaseTiming[], totalMs: number): string[] {
  const width = Math.max(5, ...phases.map((p) => p.name.length));
  const secs = (ms: number): string => `${(ms / 1000).toFixed(1).padStart(6)} s`;
  return [
    "Wall time by phase:",
    ...phases.map((p) => `  ${pad(p.name, width)}  ${secs(p.ms)}`),
    `  ${pad("total", width)}  ${secs(totalMs)}`,
  ];
}
