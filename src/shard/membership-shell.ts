/**
 * The membership loop over the pure {@link membership} rule: every retry period, renew this
 * replica's member Lease (create it when missing, update it on its resourceVersion), list the
 * group's Leases, recompute the live members and report when they change; delete peers' Leases left
 * unchanged for two lease durations; on a clean stop, stop counting itself first, then delete its own
 * Lease so that peers take its keys over at their next list. Reads and writes go through the kube
 * client port; time only through the Clock.
 */
import type { Clock } from "../clock/index.js";
import { errorMessage } from "../errors.js";
import { isAlreadyExists, isConflict, isNotFound, type KubeClient } from "../kube/index.js";
import { DEFAULT_TIMINGS, Leases, type Lease, type LeaseTimings, type Observation } from "../leader/lease.js";
import { sleepUnlessAborted, withinMs } from "../leader/bounded.js";
import type { Logger } from "../log/logger.js";
import { ownerOf } from "./assign.js";
import { checkGroupName, memberLeaseName, newMemberLease, renewedMemberLease, type MemberLeaseRef } from "./member-lease.js";
import { DEFAULT_SHARD_GROUP, SHARD_GROUP_LABEL, membership, observeGroup, type MembershipView } from "./membership.js";

/** Options of {@link ShardMembership}. */
export interface ShardMembershipOptions {
  client: Pick<KubeClient, "get" | "list" | "create" | "update" | "delete">;
  /** Namespace of the member Leases (the controller's namespace). */
  namespace: string;
  /** The shard group's name (default {@link DEFAULT_SHARD_GROUP}); the value of {@link SHARD_GROUP_LABEL}. */
  group?: string;
  /** This replica's identity, unique per process (see newIdentity in src/leader). */
  identity: string;
  clock: Clock;
  logger: Logger;
  /** Lease duration, renew deadline and retry period (default those of leader election: 15 s, 10 s, 2 s). */
  timings?: Partial<LeaseTimings>;
  /** Delete this replica's Lease on a clean stop so that peers take over at once (default true). */
  deleteOnStop?: boolean;
  /** Called with the new view whenever the set of live members (as this replica sees it) changes. */
  onChange?: (view: MembershipView) => void;
}

/** Runs one replica's membership of a shard group. */
export class ShardMembership {
  private readonly timings: LeaseTimings;
  private readonly ref: MemberLeaseRef;
  private own: Lease | undefined;
  private joinedAt: number | undefined;
  private roundOkAt: number | undefined;
  private observations: ReadonlyMap<string, Observation> = new Map();
  private published: string[] = [];

  constructor(private readonly options: ShardMembershipOptions) {
    this.timings = { ...DEFAULT_TIMINGS, ...options.timings };
    if (this.timings.renewDeadlineMs >= this.timings.leaseDurationMs)
      throw new RangeError("the lease duration must be greater than the renew deadline");
    if (this.timings.retryPeriodMs * 2 > this.timings.renewDeadlineMs)
      throw new RangeError("the renew deadline must be at least two retry periods");
    const group = options.group ?? DEFAULT_SHARD_GROUP;
    checkGroupName(group);
    this.ref = { namespace: options.namespace, group, identity: options.identity };
  }

  /** This replica's current view, judged at the clock's present (not at the last round). */
  view(): MembershipView {
    const self = { identity: this.ref.identity, joinedAt: this.joinedAt, roundOkAt: this.roundOkAt };
    return membership({ observations: this.observations, self, now: this.options.clock.now(), timings: this.timings });
  }

  /**
   * Whether this replica owns `key` now: it counts itself live and wins the key among the live
   * members. Meant to be asked right before each write for the key.
   */
  owns(key: string): boolean {
    const view = this.view();
    return view.selfLive && ownerOf(key, view.members) === this.ref.identity;
  }

  /**
   * Takes part in the group until `signal` aborts: then stops counting itself, reports the change,
   * and (unless `deleteOnStop` is false) deletes its Lease.
   */
  async run(signal: AbortSignal): Promise<void> {
    const { logger, clock } = this.options;
    logger.info({ group: this.ref.group, identity: this.ref.identity }, "joining shard group");
    while (!signal.aborted) {
      await this.round();
      const next = this.view().nextChangeAt;
      const wait = next === undefined ? this.timings.retryPeriodMs : Math.min(this.timings.retryPeriodMs, next - clock.now());
      if (!(await this.sleep(Math.max(1, wait), signal))) break;
    }
    await this.leave();
  }

  /** One round: renew, list, reap, report. A round counts only when both the renewal and the list succeeded. */
  private async round(): Promise<void> {
    const start = this.options.clock.now();
    if ((await this.renew(start)) && (await this.list(start))) this.roundOkAt = start;
    const view = this.publish();
    for (const lease of view.reapable) await this.reap(lease.name, lease.resourceVersion);
  }

  /** Creates or renews this replica's Lease; true when it was written. */
  private async renew(now: number): Promise<boolean> {
    const { client, clock, logger } = this.options;
    const create = this.own === undefined;
    try {
      const write = create
        ? client.create<Lease>(Leases, newMemberLease(this.ref, this.timings.leaseDurationMs, now))
        : client.update<Lease>(Leases, renewedMemberLease(this.own!, now));
      this.own = await this.bounded(write);
      // Set on the first write seen to succeed (a create that timed out is found by the next one's AlreadyExists).
      this.joinedAt ??= clock.now();
      return true;
    } catch (err) {
      logger.warn(
        { group: this.ref.group, err: errorMessage(err) },
        create ? "failed to create member lease" : "failed to renew member lease",
      );
      await this.recover(err);
      return false;
    }
  }

  /** After a failed write: re-read a Lease that exists or changed; forget one that is gone (and rejoin). */
  private async recover(err: unknown): Promise<void> {
    if (isNotFound(err)) {
      this.own = undefined;
      this.joinedAt = undefined;
      return;
    }
    if (!isAlreadyExists(err) && !isConflict(err)) return;
    const { client, namespace } = this.options;
    try {
      const name = memberLeaseName(this.ref.group, this.ref.identity);
      this.own = await this.bounded(client.get<Lease>(Leases, { namespace, name }));
    } catch (readErr) {
      if (isNotFound(readErr)) this.own = undefined;
    }
  }

  /** Lists the group's Leases into the observations; true on success. */
  private async list(now: number): Promise<boolean> {
    const { client, namespace, logger } = this.options;
    try {
      const labelSelector = `${SHARD_GROUP_LABEL}=${this.ref.group}`;
      const list = await this.bounded(client.list<Lease>(Leases, { namespace, labelSelector }));
      this.observations = observeGroup(this.observations, list.items, now);
      return true;
    } catch (err) {
      logger.warn({ group: this.ref.group, err: errorMessage(err) }, "failed to list the shard group's leases");
      return false;
    }
  }

  /** Deletes a dead peer's Lease, only if it is still the version judged dead. */
  private async reap(name: string, resourceVersion: string): Promise<void> {
    const { client, namespace, logger } = this.options;
    try {
      await this.bounded(client.delete(Leases, { namespace, name }, { preconditions: { resourceVersion } }));
      logger.info({ group: this.ref.group, lease: name }, "deleted the lease of a dead shard member");
    } catch (err) {
      if (!isNotFound(err) && !isConflict(err))
        logger.debug({ lease: name, err: errorMessage(err) }, "failed to delete a dead member's lease");
    }
  }

  /** Stops counting itself, reports it, then deletes its own Lease unless told not to. */
  private async leave(): Promise<void> {
    const { client, namespace, logger } = this.options;
    this.roundOkAt = undefined;
    this.joinedAt = undefined;
    this.publish();
    const own = this.own;
    this.own = undefined;
    if (own === undefined || this.options.deleteOnStop === false) return;
    try {
      const preconditions = { uid: own.metadata?.uid, resourceVersion: own.metadata?.resourceVersion };
      await this.bounded(client.delete(Leases, { namespace, name: own.metadata!.name! }, { preconditions }));
      logger.info({ group: this.ref.group, identity: this.ref.identity }, "left shard group");
    } catch (err) {
      logger.warn({ group: this.ref.group, err: errorMessage(err) }, "failed to delete member lease");
    }
  }

  /** Recomputes the view and reports it when the members changed. */
  private publish(): MembershipView {
    const view = this.view();
    if (view.members.join("\n") !== this.published.join("\n")) {
      this.published = view.members;
      this.options.logger.info(
        { group: this.ref.group, members: view.members, selfLive: view.selfLive, notLiveReason: view.notLiveReason },
        "shard group members changed",
      );
      this.options.onChange?.(view);
    }
    return view;
  }

  /** Bounds one API call by the renew deadline; the call itself is not cancelled, its result is ignored. */
  private bounded<T>(call: Promise<T>): Promise<T> {
    return withinMs(this.options.clock, call, this.timings.renewDeadlineMs);
  }

  /** Sleeps; false when `signal` aborted first. */
  private sleep(ms: number, signal: AbortSignal): Promise<boolean> {
    return sleepUnlessAborted(this.options.clock, ms, signal);
  }
}
