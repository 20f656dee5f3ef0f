/**
 * "Reconciled before progressing" (seed requirement; Argo CD's code of the spec snapshot has no
 * such guard). Before a pass may promote Applications or attach sync operations, every live
 * Application must have been reconciled by its application controller after the latest change
 * the rollout knows of:
 *
 * - its own spec: `status.reconciledAt` is set and `status.sync.comparedTo` matches its spec
 *   (`ObservedApp.reconciled`);
 * - the changes seen anywhere in the ApplicationSet: each entry reset to Waiting by a revision or
 *   spec change is a change, at its `lastTransitionTime`, to its `targetRevisions`. An Application
 *   lags behind a change when its `reconciledAt` is before it (whole seconds) and it does not
 *   already report the change's revisions; reconciled in the change's own second counts as not
 *   yet (it may have been just before), and such an Application is refreshed at once. A new commit
 *   seen on one Application may not have been
 *   seen yet on the others, whose Healthy status would then be stale; one that reports the same
 *   revisions has seen it, however long ago it was compared. The anchor is the newest change.
 *
 * Terminating Applications and Applications with an `InvalidSpecError`/`UnknownError` condition
 * (which their controller does not compare) are exempt. Lagging Applications are left alone for the
 * refresh grace period after the anchor (their controller usually catches up on its own); after it,
 * each one without a pending refresh gets the `argocd.argoproj.io/refresh` annotation.
 */
import { AppStatusMessage, RollingSyncStatus } from "../api/index.js";
import type { AppStatusEntry } from "./machine.js";
import { parseTime, type ObservedApp } from "./observe.js";

/** The gate's verdict for one pass. */
export interface ReconcileGate {
  /** True when every Application is reconciled: promotions and sync operations may proceed. */
  readonly open: boolean;
  /** Epoch ms of the latest pending change every Application must be reconciled after, if any. */
  readonly anchor: number | undefined;
  /** Applications not yet reconciled after their latest change, sorted by name. */
  readonly lagging: readonly string[];
  /** Applications to annotate with `argocd.argoproj.io/refresh: normal` now, sorted by name. */
  readonly refresh: readonly string[];
  /** When to look again if nothing else wakes the ApplicationSet up. */
  readonly requeueAfterMs: number | undefined;
}

const PENDING_CHANGES: readonly string[] = [
  AppStatusMessage.PendingChangesBoth,
  AppStatusMessage.PendingChangesRevision,
  AppStatusMessage.PendingChangesSpec,
];

/** Newest `lastTransitionTime` of a Waiting entry reset by a revision or spec change. */
export function pendingChangeAnchor(entries: readonly AppStatusEntry[]): number | undefined {
  let latest: number | undefined;
  for (const e of entries) {
    if (e.status !== RollingSyncStatus.Waiting || !PENDING_CHANGES.includes(e.message)) continue;
    const t = parseTime(e.lastTransitionTime);
    if (t !== undefined && (latest === undefined || t > latest)) latest = t;
  }
  return latest;
}

const seconds = (ms: number): number => Math.floor(ms / 1000);

/** A change the rollout knows of: when the controller saw it, and the revisions it brought. */
interface Change {
  readonly at: number;
  readonly revisions: readonly string[];
}

/** The Waiting entries reset by a revision or spec change, as changes. */
function pendingChanges(entries: readonly AppStatusEntry[]): Change[] {
  return entries.flatMap((e) => {
    const at = parseTime(e.lastTransitionTime);
    if (e.status !== RollingSyncStatus.Waiting || !PENDING_CHANGES.includes(e.message) || at === undefined) return [];
    return [{ at, revisions: e.targetRevisions ?? [] }];
  });
}

const sameRevisions = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * How an Application stands against the changes: `behind` when reconciled before one (or not
 * reconciled at all), `sameSecond` when reconciled in the very second of one (`reconciledAt` has
 * whole seconds, so it may have been before it), `none` when it has seen them all. Either way, one
 * that reports a change's revisions has seen it.
 */
function lagOf(o: ObservedApp, changes: readonly Change[]): "none" | "behind" | "sameSecond" {
  if (o.terminating || o.hasErrorCondition) return "none";
  if (!o.reconciled) return "behind";
  let lag: "none" | "sameSecond" = "none";
  for (const c of changes) {
    if (c.revisions.length > 0 && sameRevisions(o.revisions, c.revisions)) continue;
    if (o.reconciledAt === undefined || seconds(o.reconciledAt) < seconds(c.at)) return "behind";
    if (seconds(o.reconciledAt) === seconds(c.at)) lag = "sameSecond";
  }
  return lag;
}

/** What {@link reconcileGate} reads. */
export interface GateInput {
  /** The entries after Phase A. */
  readonly entries: readonly AppStatusEntry[];
  /** Every live owned Application. */
  readonly observed: readonly ObservedApp[];
  readonly now: number;
  readonly refreshGracePeriodMs: number;
}

/** Decides whether this pass may progress, and which Applications to refresh. */
export function reconcileGate(input: GateInput): ReconcileGate {
  const anchor = pendingChangeAnchor(input.entries);
  const changes = pendingChanges(input.entries);
  const since = new Map(input.entries.map((e) => [e.application, parseTime(e.lastTransitionTime)]));
  const lag = new Map(input.observed.map((o) => [o.name, lagOf(o, changes)]));
  const lagging = input.observed.filter((o) => lag.get(o.name) !== "none").sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const refresh: string[] = [];
  let wait = Infinity;
  for (const o of lagging) {
    const from = anchor ?? since.get(o.name) ?? input.now;
    // Reconciled in the change's own second: one more reconcile settles which came first, so ask at once.
    const remaining = lag.get(o.name) === "sameSecond" ? 0 : from + input.refreshGracePeriodMs - input.now;
    if (o.refreshRequested) wait = Math.min(wait, input.refreshGracePeriodMs);
    else if (remaining > 0) wait = Math.min(wait, remaining);
    else {
      refresh.push(o.name);
      wait = Math.min(wait, input.refreshGracePeriodMs);
    }
  }
  return {
    open: lagging.length === 0,
    anchor,
    lagging: lagging.map((o) => o.name),
    refresh,
    requeueAfterMs: Number.isFinite(wait) ? Math.max(1000, wait) : undefined,
  };
}
