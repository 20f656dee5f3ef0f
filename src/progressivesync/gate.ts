/**
 * "Reconciled before progressing" (seed requirement; Argo CD's code of the spec snapshot has no
 * such guard). Before a pass may promote Applications or attach sync operations, every live
 * Application must have been reconciled by its application controller after the latest change
 * the rollout knows of:
 *
 * - its own spec: `status.reconciledAt` is set and `status.sync.comparedTo` matches its spec
 *   (`ObservedApp.reconciled`);
 * - the latest change seen anywhere in the ApplicationSet: the anchor is the newest
 *   `lastTransitionTime` of an entry reset to Waiting by a revision or spec change, and each
 *   Application's `reconciledAt` must be at or after it (whole seconds). A new commit seen on one
 *   Application may not have been seen yet on the others, whose Healthy status would then be stale.
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

function lags(o: ObservedApp, anchor: number | undefined): boolean {
  if (o.terminating || o.hasErrorCondition) return false;
  if (!o.reconciled) return true;
  return anchor !== undefined && (o.reconciledAt === undefined || seconds(o.reconciledAt) < seconds(anchor));
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
  const since = new Map(input.entries.map((e) => [e.application, parseTime(e.lastTransitionTime)]));
  const lagging = input.observed.filter((o) => lags(o, anchor)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const refresh: string[] = [];
  let wait = Infinity;
  for (const o of lagging) {
    const from = anchor ?? since.get(o.name) ?? input.now;
    const remaining = from + input.refreshGracePeriodMs - input.now;
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
