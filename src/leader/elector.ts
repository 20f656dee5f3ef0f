/**
 * The leader-election loop over the pure {@link decide}: try to acquire the Lease every retry period
 * (with client-go's jitter), then renew it every retry period while leading; step down when a
 * renewal has not succeeded within the renew deadline or someone else holds the lease; release it
 * on a clean stop. Reads and writes go through the kube client port; time only through the Clock.
 */
import { randomUUID } from "node:crypto";
import { sleepUnlessAborted, withinMs } from "./bounded.js";
import type { Clock } from "../clock/index.js";
import { errorMessage } from "../errors.js";
import { isNotFound, type KubeClient } from "../kube/index.js";
import type { Logger } from "../log/logger.js";
import {
  DEFAULT_TIMINGS,
  LEASE_NAME,
  Leases,
  decide,
  observe,
  releaseSpec,
  type Lease,
  type LeaseTimings,
  type Observation,
} from "./lease.js";

/** client-go's jitter factor of the acquire retry (waits between 1× and 2.2× the retry period). */
const JITTER_FACTOR = 1.2;

/** Options of {@link LeaderElector}. */
export interface LeaderElectorOptions {
  client: Pick<KubeClient, "get" | "create" | "update">;
  /** Namespace of the Lease (the controller's namespace). */
  namespace: string;
  /** Lease name; default Argo CD's {@link LEASE_NAME}. */
  name?: string;
  /** This candidate's identity, unique per process (see {@link newIdentity}). */
  identity: string;
  clock: Clock;
  logger: Logger;
  timings?: Partial<LeaseTimings>;
  /** Give the lease up on a clean stop so the next candidate takes over at once (default true). */
  releaseOnCancel?: boolean;
  /** Called once leadership starts; `signal` aborts when it ends (lost or stopped). */
  onStartedLeading: (signal: AbortSignal) => void;
  /** Called once when leadership that had started ends (before the lease is released). */
  onStoppedLeading?: () => void;
  /** Called when the observed holder changes (including to this candidate). */
  onNewLeader?: (identity: string) => void;
  /** Source of jitter in [0, 1) (default Math.random). */
  random?: () => number;
}

/** How {@link LeaderElector.run} ended. */
export type ElectionEnd = "lost" | "stopped";

/** A unique identity like controller-runtime's: `<hostname>_<uuid>`. */
export function newIdentity(hostname: string): string {
  return `${hostname}_${randomUUID()}`;
}

/** Runs leader election for one candidate. */
export class LeaderElector {
  private readonly timings: LeaseTimings;
  private readonly name: string;
  private observed: Observation | undefined;
  private renewedAt: number | undefined;
  private lastHolder: string | undefined;

  constructor(private readonly options: LeaderElectorOptions) {
    this.timings = { ...DEFAULT_TIMINGS, ...options.timings };
    this.name = options.name ?? LEASE_NAME;
    if (this.timings.renewDeadlineMs >= this.timings.leaseDurationMs)
      throw new RangeError("the lease duration must be greater than the renew deadline");
    if (this.timings.retryPeriodMs * JITTER_FACTOR >= this.timings.renewDeadlineMs)
      throw new RangeError("the renew deadline must exceed the jittered retry period");
  }

  /** True while this candidate holds the lease. */
  isLeader(): boolean {
    return this.renewedAt !== undefined;
  }

  /**
   * Acquires the lease, leads until the lease is lost or `signal` aborts, then returns. After "lost"
   * the caller should stop its leader-only work (controller-runtime exits the process).
   */
  async run(signal: AbortSignal): Promise<ElectionEnd> {
    const { logger, onStartedLeading, onStoppedLeading } = this.options;
    logger.info({ lease: this.leaseRef() }, "attempting to acquire leader lease");
    if (!(await this.acquire(signal))) return "stopped";
    logger.info({ lease: this.leaseRef(), identity: this.options.identity }, "successfully acquired lease");
    const leadership = new AbortController();
    onStartedLeading(leadership.signal);
    const end = await this.renewLoop(signal);
    this.renewedAt = undefined;
    leadership.abort(new Error(end === "lost" ? "leader election lost" : "leader election stopped"));
    if (end === "lost") logger.error({ lease: this.leaseRef() }, "leader election lost");
    // Leader-only work is told to stop before the lease is released, so it never overlaps the next leader's.
    onStoppedLeading?.();
    if (end === "stopped" && this.options.releaseOnCancel !== false) await this.release();
    return end;
  }

  private leaseRef(): string {
    return `${this.options.namespace}/${this.name}`;
  }

  /** Tries until this candidate leads (true) or `signal` aborts (false). */
  private async acquire(signal: AbortSignal): Promise<boolean> {
    const random = this.options.random ?? Math.random;
    while (!signal.aborted) {
      if ((await this.tryAcquireOrRenew()) === "leading") return true;
      const wait = this.timings.retryPeriodMs * (1 + random() * JITTER_FACTOR);
      if (!(await this.sleep(wait, signal))) return false;
    }
    return false;
  }

  /** Renews every retry period until the lease is lost or `signal` aborts. */
  private async renewLoop(signal: AbortSignal): Promise<ElectionEnd> {
    for (;;) {
      if (!(await this.sleep(this.renewWait(), signal))) return "stopped";
      if ((await this.tryAcquireOrRenew()) === "lost") return "lost";
    }
  }

  /** The retry period, shortened so that a leader notices its renew deadline when it passes. */
  private renewWait(): number {
    if (this.renewedAt === undefined) return this.timings.retryPeriodMs;
    const untilDeadline = this.renewedAt + this.timings.renewDeadlineMs - this.options.clock.now();
    return Math.max(0, Math.min(this.timings.retryPeriodMs, untilDeadline));
  }

  /** One round: read the lease, decide, write. */
  private async tryAcquireOrRenew(): Promise<"leading" | "waiting" | "lost"> {
    const { clock, client, namespace, identity, logger } = this.options;
    const now = clock.now();
    if (this.deadlinePassed(now)) return "lost";
    const current = await this.read(now);
    if (current === "failed") return this.deadlinePassed(clock.now()) ? "lost" : "waiting";
    const decision = decide({ observed: this.observed, identity, now, timings: this.timings, leadingRenewedAt: this.renewedAt });
    if (decision.action === "lost") {
      logger.warn({ lease: this.leaseRef(), reason: decision.reason }, "failed to renew lease");
      return "lost";
    }
    if (decision.action === "wait") return "waiting";
    const body: Lease = {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      ...(current ?? {}),
      metadata: {
        ...current?.metadata,
        name: this.name,
        namespace,
        ...(decision.action === "update" ? { resourceVersion: decision.resourceVersion } : {}),
      },
      spec: decision.spec,
    };
    try {
      const write = decision.action === "create" ? client.create<Lease>(Leases, body) : client.update<Lease>(Leases, body);
      const written = await this.bounded(write, now);
      this.observed = observe(undefined, written, now);
      this.renewedAt = now;
      this.noteHolder(identity);
      return "leading";
    } catch (err) {
      logger.debug({ lease: this.leaseRef(), err: errorMessage(err) }, "lease write failed");
      return this.deadlinePassed(clock.now()) ? "lost" : "waiting";
    }
  }

  /** Reads the lease and updates the observation; undefined when it does not exist. */
  private async read(now: number): Promise<Lease | undefined | "failed"> {
    const { client, namespace, logger } = this.options;
    try {
      const lease = await this.bounded(client.get<Lease>(Leases, { namespace, name: this.name }), now);
      this.observed = observe(this.observed, lease, now);
      this.noteHolder(lease.spec?.holderIdentity ?? "");
      return lease;
    } catch (err) {
      if (isNotFound(err)) {
        this.observed = undefined;
        return undefined;
      }
      logger.warn({ lease: this.leaseRef(), err: errorMessage(err) }, "error retrieving lease");
      return "failed";
    }
  }

  /** Gives the lease up if this candidate still holds it. */
  private async release(): Promise<void> {
    const { client, clock, namespace, identity, logger } = this.options;
    const now = clock.now();
    try {
      const lease = await this.bounded(client.get<Lease>(Leases, { namespace, name: this.name }), now);
      if (lease.spec?.holderIdentity !== identity) return;
      await this.bounded(client.update<Lease>(Leases, { ...lease, spec: releaseSpec(lease.spec, now) }), now);
      logger.info({ lease: this.leaseRef() }, "released leader lease");
    } catch (err) {
      logger.warn({ lease: this.leaseRef(), err: errorMessage(err) }, "failed to release lease");
    }
  }

  private deadlinePassed(now: number): boolean {
    return this.renewedAt !== undefined && now - this.renewedAt >= this.timings.renewDeadlineMs;
  }

  private noteHolder(holder: string): void {
    if (holder === this.lastHolder) return;
    this.lastHolder = holder;
    if (holder !== "") this.options.onNewLeader?.(holder);
  }

  /**
   * Bounds one API call: a leader may wait only until its renew deadline, a candidate a whole renew
   * deadline. The call itself is not cancelled (the port takes no signal); its result is ignored.
   */
  private bounded<T>(call: Promise<T>, start: number): Promise<T> {
    const leftMs = this.renewedAt === undefined ? this.timings.renewDeadlineMs : this.renewedAt + this.timings.renewDeadlineMs - start;
    return withinMs(this.options.clock, call, Math.max(1, leftMs));
  }

  /** Sleeps; false when `signal` aborted first. */
  private sleep(ms: number, signal: AbortSignal): Promise<boolean> {
    return sleepUnlessAborted(this.options.clock, ms, signal);
  }
}
