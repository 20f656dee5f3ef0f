/**
 * Where one Application of a step stands (docs/adr/0009-rollout-policy-crd.md): ready (Healthy and
 * Synced on its pinned revisions, and its last sync did not fail), failed (Degraded while Synced,
 * or its sync since the step started Failed or Errored whatever its health, so a
 * SyncFailed-but-Healthy Application counts as failed and never blocks a step forever), or pending;
 * an Application Degraded while still OutOfSync has not yet been synced to the rollout's revisions
 * and a sync that failed before the step started belongs to an earlier rollout: both are pending,
 * and count as failures only at the deadline. For one that is not ready, a line naming
 * it and what it lacks: "prod-eu: OutOfSync at 3f2a1c9, wants 9b8c7d6, last reconciled 12 s ago".
 */
import { HealthStatus, OperationPhase, SyncStatus } from "../../api/index.js";
import type { AppObservation, StepCounts } from "./types.js";

/** Where an Application stands. */
export type Standing = "ready" | "failed" | "pending";

/** The shown length of a revision (Git's default abbreviation). */
const SHORT = 7;

const short = (revs: readonly string[]): string => (revs.length === 0 ? "no revision" : revs.map((r) => r.slice(0, SHORT)).join("+"));

/** The same revisions in the same order. */
export const sameRevisions = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/** Its last sync Failed or Errored. */
export function syncFailed(o: AppObservation): boolean {
  return o.operationPhase === OperationPhase.Failed || o.operationPhase === OperationPhase.Error;
}

/** Its sync failed at or after `since` (same second counts); an operation of unknown start counts. */
function syncFailedSince(o: AppObservation, since: number | undefined): boolean {
  if (!syncFailed(o)) return false;
  if (since === undefined || o.operationStartedAt === undefined) return true;
  return Math.floor(o.operationStartedAt / 1000) >= Math.floor(since / 1000);
}

/**
 * Classifies one Application against the revisions it is rolled out to, for a step started at
 * `since` (absent: any failed sync counts); a missing one is pending.
 */
export function standingOf(o: AppObservation | undefined, target: readonly string[], since?: number): Standing {
  if (o === undefined) return "pending";
  const degraded = o.healthStatus === HealthStatus.Degraded && o.syncStatus === SyncStatus.Synced;
  if (syncFailedSince(o, since) || degraded) return "failed";
  const onTarget = sameRevisions(o.revisions, target);
  return onTarget && o.syncStatus === SyncStatus.Synced && o.healthStatus === HealthStatus.Healthy ? "ready" : "pending";
}

/** What an Application lacks, as words: its sync status, health and last operation where they are wrong. */
function lacks(o: AppObservation): string[] {
  const out: string[] = [];
  if (o.syncStatus !== SyncStatus.Synced) out.push(o.syncStatus ?? "no sync status");
  if (o.healthStatus !== HealthStatus.Healthy) out.push(o.healthStatus ?? "no health");
  if (syncFailed(o)) out.push(`sync ${o.operationPhase ?? ""}`);
  return out;
}

/** One line naming an Application that is not ready and what it lacks. */
export function whyLine(name: string, o: AppObservation | undefined, target: readonly string[], now: number): string {
  if (o === undefined) return `${name}: not found`;
  const words = lacks(o);
  const onTarget = sameRevisions(o.revisions, target);
  const parts = [`${name}: ${words.length > 0 ? words.join(", ") : "not yet"} at ${short(o.revisions)}`];
  if (!onTarget) parts.push(`wants ${short(target)}`);
  if (o.reconciledAt !== undefined) parts.push(`last reconciled ${Math.max(0, Math.floor((now - o.reconciledAt) / 1000))} s ago`);
  return parts.join(", ");
}

/** The standings of a step's Applications. */
export interface StepStanding {
  readonly counts: StepCounts;
  readonly failed: readonly string[];
  /** Every Application not ready, in step order, with its line. */
  readonly notReady: readonly { readonly name: string; readonly line: string }[];
}

/** When a step is classified: the run's targets, now, and when the step started (absent: any failed sync counts). */
export interface StandingAt {
  readonly targets: Readonly<Record<string, readonly string[]>>;
  readonly now: number;
  readonly since?: number;
}

/** Classifies every Application of a step. */
export function standStep(apps: readonly string[], observed: ReadonlyMap<string, AppObservation>, at: StandingAt): StepStanding {
  const { targets, now, since } = at;
  const failed: string[] = [];
  const notReady: { name: string; line: string }[] = [];
  let ready = 0;
  for (const name of apps) {
    const o = observed.get(name);
    const target = targets[name] ?? [];
    const s = standingOf(o, target, since);
    if (s === "ready") ready++;
    else notReady.push({ name, line: whyLine(name, o, target, now) });
    if (s === "failed") failed.push(name);
  }
  const counts = { total: apps.length, ready, failed: failed.length, pending: apps.length - ready - failed.length };
  return { counts, failed, notReady };
}
