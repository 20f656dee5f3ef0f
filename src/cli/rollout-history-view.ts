/**
 * `appset rollout history` as rows and text: every RolloutRun of an ApplicationSet, newest first,
 * with its phase, halt reason, start, end or duration, steps completed of total, and whether it was
 * rolled back. Pure.
 */
import type { RolloutRun } from "../api/rollout-run.js";
import { StepPhase } from "../progressivesync/safety/types.js";
import { newestFirst } from "../progressivesync/safety/order.js";
import { parseTime } from "../progressivesync/observe.js";
import { seconds } from "./rollout-status-view.js";

/** One run in the history. */
export interface HistoryRow {
  readonly name: string;
  readonly phase: string;
  readonly haltReason: string;
  readonly startedAt: string;
  readonly endedAt: string;
  /** How long it ran (until now for a run not ended), "" without a start. */
  readonly duration: string;
  readonly stepsCompleted: number;
  readonly steps: number;
  readonly rolledBack: boolean;
}

/** The history rows, newest first; `now` (epoch ms) times the runs still going. */
export function historyRows(runs: readonly RolloutRun[], now: number): HistoryRow[] {
  return newestFirst(runs).map((r) => {
    const st = r.status ?? {};
    const started = parseTime(st.startedAt);
    const steps = st.steps ?? [];
    return {
      name: r.metadata.name ?? "",
      phase: st.phase ?? "",
      haltReason: st.haltReason ?? "",
      startedAt: st.startedAt ?? "",
      endedAt: st.endedAt ?? "",
      duration: started === undefined ? "" : seconds((parseTime(st.endedAt) ?? now) - started),
      stepsCompleted: steps.filter((s) => s.phase === StepPhase.Completed).length,
      steps: steps.length,
      rolledBack: st.rollback !== undefined,
    };
  });
}

const HEADER = ["RUN", "PHASE", "HALT REASON", "STARTED", "ENDED", "DURATION", "STEPS", "ROLLED BACK"];

/** The rows as an aligned table; "-" marks an empty cell. */
export function renderHistory(rows: readonly HistoryRow[]): string[] {
  const cells = rows.map((r) => [
    r.name,
    r.phase,
    r.haltReason,
    r.startedAt,
    r.endedAt,
    r.duration,
    `${String(r.stepsCompleted)}/${String(r.steps)}`,
    r.rolledBack ? "yes" : "no",
  ]);
  const table = [HEADER, ...cells.map((c) => c.map((v) => v || "-"))];
  const widths = HEADER.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  return table.map((row) => row.map((v, i) => (i === row.length - 1 ? v : v.padEnd(widths[i]!))).join("  "));
}
