/**
 * The pure core of leader election on a `coordination.k8s.io/v1` Lease, with client-go's
 * `leaderelection` semantics:
 *
 * - A candidate judges expiry by its **own** clock: a lease is held until `leaseDurationSeconds`
 *   after the moment this candidate last saw the record change (never by comparing `renewTime` with
 *   its clock, so clock skew between nodes does not matter).
 * - Taking a lease over bumps `leaseTransitions` and sets `acquireTime`; renewing keeps both.
 * - Writes carry the observed `resourceVersion`, so of two candidates racing for an expired lease
 *   only one update succeeds (optimistic concurrency).
 * - A leader that has not renewed within the renew deadline steps down; since the deadline (10 s)
 *   is shorter than the lease (15 s), it stops before anyone else may take over.
 * - Releasing writes an empty `holderIdentity` (and a 1 s duration), so the next candidate takes
 *   over on its next try.
 */
import type { KubeObject, ResourceDescriptor } from "../kube/index.js";

/** coordination.k8s.io/v1 Lease. */
export const Leases: ResourceDescriptor = {
  group: "coordination.k8s.io",
  version: "v1",
  plural: "leases",
  kind: "Lease",
  namespaced: true,
};

/** Argo CD's ApplicationSet controller lease name. */
export const LEASE_NAME = "58ac56fa.applicationsets.argoproj.io";

/** controller-runtime's defaults: lease 15 s, renew deadline 10 s, retry every 2 s. */
export const DEFAULT_TIMINGS: LeaseTimings = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };

/** The three durations of leader election. */
export interface LeaseTimings {
  /** How long a non-leader waits after the last observed change before taking the lease over. */
  leaseDurationMs: number;
  /** How long a leader keeps leading without a successful renewal. */
  renewDeadlineMs: number;
  /** How often a candidate tries to acquire, and a leader to renew. */
  retryPeriodMs: number;
}

/** The Lease spec fields leader election reads and writes. Times are RFC 3339 with microseconds. */
export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

/** A Lease object. */
export interface Lease extends KubeObject {
  spec?: LeaseSpec;
}

/** What a candidate remembers of the lease between tries. */
export interface Observation {
  /** The record as last read. */
  spec: LeaseSpec;
  resourceVersion: string;
  /** Local time when this candidate first saw this version of the record. */
  at: number;
}

/** Records a read of the lease: the observation time moves only when the record changed. */
export function observe(previous: Observation | undefined, lease: Lease, now: number): Observation {
  const resourceVersion = lease.metadata?.resourceVersion ?? "";
  const spec = lease.spec ?? {};
  if (previous !== undefined && previous.resourceVersion === resourceVersion) return previous;
  return { spec, resourceVersion, at: now };
}

/** Everything one decision depends on. */
export interface DecisionInput {
  /** The current lease as observed, or undefined when it does not exist. */
  observed: Observation | undefined;
  identity: string;
  now: number;
  timings: LeaseTimings;
  /** Local time of this candidate's last successful acquire or renew while leading; undefined when not leading. */
  leadingRenewedAt: number | undefined;
}

/** What to do next. */
export type Decision =
  | { action: "create"; spec: LeaseSpec }
  | { action: "update"; kind: "acquire" | "renew"; spec: LeaseSpec; resourceVersion: string }
  | { action: "wait"; holder: string; expiresAt: number }
  | { action: "lost"; reason: string };

/** Kubernetes MicroTime: RFC 3339 with six fractional digits. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

/** Whether the observed record is still held by someone: its holder is set and it has not expired. */
function heldUntil(obs: Observation, timings: LeaseTimings): number {
  const seconds = obs.spec.leaseDurationSeconds;
  const duration = seconds !== undefined && seconds > 0 ? seconds * 1000 : timings.leaseDurationMs;
  return obs.at + duration;
}

/** Decides the next step of a candidate (acquire, renew, wait) or of a leader that has lost. */
export function decide(input: DecisionInput): Decision {
  const { observed, identity, now, timings, leadingRenewedAt } = input;
  const leading = leadingRenewedAt !== undefined;
  if (leading && now - leadingRenewedAt >= timings.renewDeadlineMs) {
    return { action: "lost", reason: `failed to renew the lease within ${timings.renewDeadlineMs} ms` };
  }
  const fresh: LeaseSpec = {
    holderIdentity: identity,
    leaseDurationSeconds: Math.ceil(timings.leaseDurationMs / 1000),
    acquireTime: microTime(now),
    renewTime: microTime(now),
  };
  if (observed === undefined) return { action: "create", spec: { ...fresh, leaseTransitions: 0 } };
  const holder = observed.spec.holderIdentity ?? "";
  const expiresAt = heldUntil(observed, timings);
  if (holder !== "" && holder !== identity && expiresAt > now) {
    return leading ? { action: "lost", reason: `the lease is held by ${holder}` } : { action: "wait", holder, expiresAt };
  }
  const transitions = observed.spec.leaseTransitions ?? 0;
  if (holder === identity) {
    const spec = { ...fresh, acquireTime: observed.spec.acquireTime ?? fresh.acquireTime, leaseTransitions: transitions };
    return { action: "update", kind: "renew", spec, resourceVersion: observed.resourceVersion };
  }
  return {
    action: "update",
    kind: "acquire",
    spec: { ...fresh, leaseTransitions: transitions + 1 },
    resourceVersion: observed.resourceVersion,
  };
}

/** The record that gives the lease up: no holder, a 1 s duration (client-go's release). */
export function releaseSpec(observed: LeaseSpec, now: number): LeaseSpec {
  return {
    holderIdentity: "",
    leaseDurationSeconds: 1,
    acquireTime: microTime(now),
    renewTime: microTime(now),
    leaseTransitions: observed.leaseTransitions ?? 0,
  };
}
