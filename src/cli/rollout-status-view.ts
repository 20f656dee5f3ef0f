/**
 * `appset rollout status` as text: a RolloutRun in, lines out (pure; time comes in as `now`). The
 * header names the ApplicationSet, the run, its phase and halt reason, its start and how long it has
 * run; one line per step gives its phase, its progress (a bar on a terminal, `ready 5/10` otherwise),
 * its failures and the time left before its deadline or to the end of its soak, with the step's
 * message (why it waits) beneath; then the rollback record and the last request results.
 */
import type { RolloutRun, RunStepStatus } from "../api/rollout-run.js";
import { formatGoDuration } from "../clock/go-duration.js";
import { StepPhase } from "../progressivesync/safety/types.js";
import { parseTime } from "../progressivesync/observe.js";

/** How to render. */
export interface StatusViewOptions {
  /** Epoch milliseconds, from the injected clock. */
  readonly now: number;
  /** A terminal gets progress bars; a pipe or a CI log gets plain text. */
  readonly isTTY: boolean;
  /** The soak of each step (1-based) in milliseconds, when the run's policy was read. */
  readonly soakMs?: ReadonlyMap<number, number>;
  /** The halted run this Paused run waits behind (see heldBehind in rollout-runs.ts). */
  readonly heldBehind?: RolloutRun;
}

/** How many request results the status shows (the newest). */
export const SHOWN_REQUESTS = 5;
const BAR_WIDTH = 20;

/** A duration rounded to whole seconds, as Go prints it (`4m10s`, `1h0m0s`). */
export function seconds(ms: number): string {
  return formatGoDuration(BigInt(Math.max(0, Math.round(ms / 1000))) * 1_000_000_000n);
}

/** `[########------------] 5/12`: the ready share of the step's Applications. */
export function progressBar(ready: number, total: number): string {
  const filled = total <= 0 ? 0 : Math.min(BAR_WIDTH, Math.floor((Math.max(0, ready) * BAR_WIDTH) / total));
  return `[${"#".repeat(filled)}${"-".repeat(BAR_WIDTH - filled)}] ${String(ready)}/${String(total)}`;
}

function progress(s: RunStepStatus, o: StatusViewOptions): string | undefined {
  if (s.counts === undefined) return undefined;
  return o.isTTY ? progressBar(s.counts.ready, s.counts.total) : `ready ${String(s.counts.ready)}/${String(s.counts.total)}`;
}

function timeLeft(s: RunStepStatus, o: StatusViewOptions): string | undefined {
  const deadline = parseTime(s.deadline);
  if (s.phase === StepPhase.Progressing && deadline !== undefined) {
    return deadline >= o.now ? `deadline in ${seconds(deadline - o.now)}` : `deadline passed ${seconds(o.now - deadline)} ago`;
  }
  const soakStart = parseTime(s.soakStartedAt);
  if (s.phase !== StepPhase.Soaking || soakStart === undefined) return undefined;
  const soak = o.soakMs?.get(s.step);
  if (soak === undefined) return `soaking for ${seconds(o.now - soakStart)}`;
  return `soak ends in ${seconds(soakStart + soak - o.now)} (of ${seconds(soak)})`;
}

const indent = (text: string, by: string): string[] => text.split("\n").map((l) => `${by}${l}`);

function stepLines(s: RunStepStatus, o: StatusViewOptions): string[] {
  const parts = [`Step ${String(s.step)}`, s.phase.padEnd(16), progress(s, o)];
  if (s.counts !== undefined && s.counts.failed > 0) parts.push(`failed ${String(s.counts.failed)}`);
  parts.push(timeLeft(s, o));
  if ((s.toleratedFailures ?? []).length > 0) parts.push(`completed without ${s.toleratedFailures!.join(", ")}`);
  const lines = [`  ${parts.filter((p) => p !== undefined).join("  ")}`.trimEnd()];
  if (s.message !== undefined && s.message !== "" && s.phase !== StepPhase.Completed) lines.push(...indent(s.message, "      "));
  return lines;
}

function timeLines(run: RolloutRun, o: StatusViewOptions): string[] {
  const st = run.status ?? {};
  const started = parseTime(st.startedAt);
  if (started === undefined) return [];
  const end = parseTime(st.endedAt) ?? o.now;
  return [`Started:        ${st.startedAt!}`, `Elapsed:        ${seconds(end - started)}${st.endedAt ? ` (ended ${st.endedAt})` : ""}`];
}

function headerLines(run: RolloutRun, o: StatusViewOptions): string[] {
  const st = run.status ?? {};
  const lines = [
    `ApplicationSet: ${run.spec.applicationSet} (namespace ${run.metadata.namespace ?? ""})`,
    `Run:            ${run.metadata.name ?? ""}${run.spec.policy === undefined ? "" : ` (policy ${run.spec.policy})`}`,
    `Phase:          ${st.phase ?? "Pending (no status yet)"}${st.haltReason ? `, ${st.haltReason}` : ""}`,
    ...timeLines(run, o),
  ];
  if (st.currentStep !== undefined) lines.push(`Current step:   ${String(st.currentStep)} of ${String((st.steps ?? []).length)}`);
  if (st.message) lines.push(`Message:        ${st.message}`);
  return lines;
}

/** What holds a Paused run: the halted run before it, why it halted, and its rollback. */
function heldBehindLines(halted: RolloutRun | undefined): string[] {
  if (halted === undefined) return [];
  const st = halted.status ?? {};
  const step = st.currentStep === undefined ? "" : ` at step ${String(st.currentStep)}`;
  const lines = [
    `Held behind:    ${halted.metadata.name ?? ""} (Halted${st.haltReason ? `, ${st.haltReason}` : ""}${step}); resume to roll this run out`,
  ];
  if (st.message) lines.push(...indent(st.message, "  "));
  lines.push(...rollbackLines(halted).map((l) => `  ${l}`));
  return lines;
}

function rollbackLines(run: RolloutRun): string[] {
  const rb = run.status?.rollback;
  if (rb === undefined) return [];
  const lines = [`Rolled back${rb.at ? ` at ${rb.at}` : ""}:`];
  for (const a of rb.applications ?? [])
    lines.push(`  ${a.application}: ${(a.from ?? []).join(", ") || "(none)"} -> ${(a.to ?? []).join(", ") || "(none)"}`);
  if ((rb.skipped ?? []).length > 0) lines.push(`  left as they are (no revisions in the last completed run): ${rb.skipped!.join(", ")}`);
  return lines;
}

/** One line per request, newest last: what was asked, by whom, and what became of it. */
export function requestLines(run: RolloutRun, limit = SHOWN_REQUESTS): string[] {
  const reqs = run.spec.requests ?? [];
  if (reqs.length === 0) return [];
  const observed = run.status?.observedRequests ?? 0;
  const results = new Map((run.status?.requests ?? []).map((r) => [r.index, r]));
  const first = Math.max(0, reqs.length - limit);
  const lines = [`Requests (last ${String(reqs.length - first)} of ${String(reqs.length)}):`];
  reqs.slice(first).forEach((r, i) => {
    const index = first + i;
    const res = results.get(index);
    const outcome =
      res === undefined ? (index < observed ? "seen" : "not applied yet") : res.applied ? "applied" : `refused: ${res.message ?? ""}`;
    const what = `${r.action}${r.step === undefined ? "" : ` step ${String(r.step)}`}`;
    lines.push(
      `  #${String(index)} ${what} by ${r.by ?? "?"} at ${r.at ?? "?"}: ${outcome}${res?.applied && res.message ? ` (${res.message})` : ""}`,
    );
  });
  return lines;
}

/** The status of a run as lines of text. */
export function renderStatus(run: RolloutRun, o: StatusViewOptions): string[] {
  const steps = run.status?.steps ?? [];
  const lines = [...headerLines(run, o), ...heldBehindLines(o.heldBehind)];
  lines.push(steps.length === 0 ? "Steps: none yet" : "Steps:");
  for (const s of steps) lines.push(...stepLines(s, o));
  const rb = rollbackLines(run);
  const reqs = requestLines(run);
  if (rb.length > 0) lines.push(...rb);
  if (reqs.length > 0) lines.push(...reqs);
  return lines;
}
