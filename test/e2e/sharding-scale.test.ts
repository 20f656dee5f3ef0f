/**
 * Sharded replicas scaled on the real control plane (docs/sharding.md): 300 ApplicationSets of one
 * Application each, three `appset controller --enable-sharding` processes; one is SIGKILLed, two
 * more start (four live), two are stopped with SIGTERM (two live). After each step an edit of every
 * ApplicationSet reaches every Application. About 80 s on two shared cores.
 *
 * A watch of the test's own on the member Leases computes, at every change, the owner of every
 * ApplicationSet from the live members (the replicas' rule: a Lease is live until a renew deadline
 * and a retry period after it was last seen to change, a deleted one is gone at once; the owner is `ownerOf` over the live
 * holders). Against it: in every edit round each ApplicationSet is planned by exactly one replica,
 * its owner at that moment (the replicas' debug "planned" lines, which carry `applicationset` and
 * `replica`; all replicas share one field manager, so `managedFields` cannot tell them apart); a
 * watch of the Applications sees each written once per round; the ApplicationSets of the killed
 * replica wait at most one lease duration and a pass, those of the stopped ones
 * one retry period and a pass. The hand-over times are printed. A replica lists the group every retry
 * period while the watch is pushed, so the watch may learn of a change a little after a replica
 * acts on it; a replica's pass already under way when it loses a key still logs "planned" (its
 * writes are fenced): the checks allow for both.
 */
import { afterAll, describe, expect, it } from "vitest";
import { Leases, type Lease } from "../../src/leader/lease.js";
import { resources, type KubeObject } from "../../src/kube/index.js";
import { ownerOf, SHARD_GROUP_LABEL } from "../../src/shard/index.js";
import { follow, type Follower } from "../chaos/support/follow.js";
import { eventually, listAppSet, processArgs, spawnController, type ControllerProcess } from "./support/controller.js";
import { e2eSuite } from "./support/suite.js";

const SETS = 300;
const LEASE_MS = 15_000;
const RETRY_MS = 2_000;
const RENEW_DEADLINE_MS = 10_000;
/** How long after its Lease last changed a member counts as live (docs/sharding.md#timings). */
const EXPIRY_MS = RENEW_DEADLINE_MS + RETRY_MS;
/** A generous bound on one pass reaching a replica's ApplicationSet on a shared two-core machine. */
const PASS_MS = 10_000;
/** How long after a change in the members a replica may still act on its former view: its next list, then a pass. */
const GRACE_MS = RETRY_MS + PASS_MS;
/** How much later than a replica the test's watch may learn of a change (a replica lists every retry period; the watch is pushed). */
const WATCH_LAG_MS = 2_000;
/** Millisecond timestamps on the replicas' log lines, comparable with the watches' times. */
const LOG_ENV = { ...process.env, ARGOCD_LOG_FORMAT_TIMESTAMP: "2006-01-02T15:04:05.000Z07:00" };

const names = Array.from({ length: SETS }, (_, i) => `s${String(i)}`);
const suite = e2eSuite();
const procs = suite.procs;
const followers: Follower[] = [];

// Registered after e2eSuite's: runs first, so every process and watch is gone before the namespace is deleted.
afterAll(async () => {
  for (const f of followers) f.stop();
  for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGKILL");
  await Promise.all(procs.map((p) => p.exited));
});

/** Epoch milliseconds of a watch event's arrival (`follow` reports `performance.now()`). */
const epoch = (at: number): number => Math.round(performance.timeOrigin + at);
const now = (): number => epoch(performance.now());
const seconds = (ms: number): string => (ms / 1000).toFixed(1);

/** One observed change of a member Lease. */
interface LeaseEvent {
  readonly at: number;
  readonly lease: string;
  readonly holder: string;
  readonly deleted: boolean;
}

/**
 * The member Leases as the test sees them, with their history: the live holders at any moment, and
 * the owners of every key recomputed at every change (a Lease seen to change, deleted, or expiring).
 */
class MemberWatch {
  readonly events: LeaseEvent[] = [];
  /** Every change of the live members: when, who, and how many keys each owns. */
  readonly changes: Array<{ at: number; live: string[]; owned: Map<string, number> }> = [];
  /** Keys whose owner changed although neither their old owner left nor their new one joined. */
  readonly strayMoves: string[] = [];
  private readonly seenRv = new Map<string, string>();
  private owners = new Map<string, string>();

  constructor(private readonly keys: readonly string[]) {}

  on(type: string, o: KubeObject, at: number): void {
    if (o.metadata?.labels?.[SHARD_GROUP_LABEL] === undefined) return;
    const lease = o.metadata.name ?? "";
    const rv = o.metadata.resourceVersion ?? "";
    const deleted = type === "DELETED";
    if (!deleted && this.seenRv.get(lease) === rv) return;
    this.seenRv.set(lease, rv);
    const t = epoch(at);
    this.events.push({ at: t, lease, holder: (o as Lease).spec?.holderIdentity ?? "", deleted });
    this.recompute(t);
    // The member expires after this change unless its Lease is renewed: look again then.
    if (!deleted) setTimeout(() => this.recompute(now()), EXPIRY_MS + 50).unref();
  }

  /** The live holders at `t`. */
  liveAt(t: number): string[] {
    const last = new Map<string, LeaseEvent>();
    for (const e of this.events) {
      if (e.at > t) break;
      last.set(e.lease, e);
    }
    return [...last.values()].filter((e) => !e.deleted && t < e.at + EXPIRY_MS).map((e) => e.holder);
  }

  ownerAt(key: string, t: number): string | undefined {
    const live = this.liveAt(t);
    return ownerOf(key, live);
  }

  /**
   * Whether `replica` owned `key` at some moment from `from` to `to`: owners change only when a
   * Lease is seen to change or expires, so the owner is looked at `from` and at each such moment.
   */
  ownedWithin(key: string, replica: string, from: number, to: number): boolean {
    const moments = this.events.flatMap((e) => [e.at, e.at + EXPIRY_MS]).filter((m) => m > from && m <= to);
    return [from, ...moments].some((m) => this.ownerAt(key, m) === replica);
  }

  /** When the Lease of `holder` was last seen deleted (undefined while not). */
  deletedAt(holder: string): number | undefined {
    return this.events.findLast((e) => e.holder === holder && e.deleted)?.at;
  }

  /** When the Lease of `holder` was first seen. */
  joinedAt(holder: string): number | undefined {
    return this.events.find((e) => e.holder === holder)?.at;
  }

  private recompute(t: number): void {
    const live = this.liveAt(t).sort();
    const previous = this.changes.at(-1)?.live ?? [];
    if (live.join("\n") === previous.join("\n")) return;
    const owners = new Map<string, string>();
    const owned = new Map<string, number>(live.map((m) => [m, 0]));
    if (live.length > 0)
      for (const k of this.keys) {
        const o = ownerOf(k, live)!;
        owners.set(k, o);
        owned.set(o, (owned.get(o) ?? 0) + 1);
        // Rendezvous hashing moves a key only from a member that left or to one that joined.
        const was = this.owners.get(k);
        if (was !== undefined && was !== o && live.includes(was) && previous.includes(o)) this.strayMoves.push(`${k}: ${was} -> ${o}`);
      }
    this.owners = owners;
    this.changes.push({ at: t, live, owned });
  }
}

/** A "planned" line: which replica planned which ApplicationSet, when. */
interface Plan {
  readonly at: number;
  readonly replica: string;
  readonly set: string;
}

function plans(p: ControllerProcess): Plan[] {
  return p.logs
    .filter((l) => l["msg"] === "planned")
    .map((l) => ({
      at: Date.parse(String(l["time"])),
      replica: String(l["replica"]),
      set: (l["applicationset"] as { Name?: string } | undefined)?.Name ?? "",
    }));
}

/** The identity of a replica (its member Lease's holderIdentity), from its membership lines. */
function identity(p: ControllerProcess): string | undefined {
  const line = p.logs.find((l) => l["msg"] === "shard group members changed" && l["replica"] !== undefined);
  return line === undefined ? undefined : String(line["replica"]);
}

/** Whether the replica's latest view has `n` members, itself among them. */
function sees(p: ControllerProcess, n: number): boolean {
  const line = p.logs.findLast((l) => l["msg"] === "shard group members changed");
  return line !== undefined && (line["members"] as string[]).length === n && line["selfLive"] === true;
}

/** Each Application's writes (its resourceVersion changing), with the value of label `edit` each wrote. */
class AppWrites {
  readonly writes = new Map<string, Array<{ at: number; edit: string | undefined }>>();
  private readonly seenRv = new Map<string, string>();

  on(type: string, o: KubeObject, at: number): void {
    const name = o.metadata?.name ?? "";
    const rv = o.metadata?.resourceVersion ?? "";
    if (type === "DELETED" || this.seenRv.get(name) === rv) return;
    this.seenRv.set(name, rv);
    this.writes.set(name, [...(this.writes.get(name) ?? []), { at: epoch(at), edit: o.metadata?.labels?.["edit"] }]);
  }

  /** When the Application first carried `edit`. */
  editedAt(name: string, edit: string): number | undefined {
    return this.writes.get(name)?.find((w) => w.edit === edit)?.at;
  }

  /** The writes of each Application from `from` on, by name. */
  countsSince(from: number): Map<string, number> {
    const out = new Map<string, number>();
    for (const [name, ws] of this.writes) out.set(name, ws.filter((w) => w.at >= from).length);
    return out;
  }
}

describe("sharded replicas scaled", () => {
  it(`keep one owner for each of ${String(SETS)} ApplicationSets through a kill, a scale to four and a scale to two`, async () => {
    const c = suite.client();
    const ns = await suite.namespace("shard-scale");
    const keys = names.map((n) => `${ns}/${n}`);
    const members = new MemberWatch(keys);
    const apps = new AppWrites();
    followers.push(await follow(c, Leases, ns, (type, o, at) => members.on(type, o, at)));
    followers.push(await follow(c, resources.Applications, ns, (type, o, at) => apps.on(type, o, at)));

    for (let i = 0; i < SETS; i += 20)
      await Promise.all(names.slice(i, i + 20).map((n) => c.create(resources.ApplicationSets, listAppSet(n, ns, [`${n}-app`]))));
    const spawn = (): ControllerProcess => {
      const p = spawnController(processArgs(ns, "--enable-sharding", "--loglevel", "debug"), "controller", undefined, LOG_ENV);
      procs.push(p);
      return p;
    };
    const running = new Set([spawn(), spawn(), spawn()]);
    const id = (p: ControllerProcess): string => identity(p) ?? "";

    /** Waits until every running replica sees exactly the running ones. */
    const settled = async (what: string): Promise<void> => {
      await eventually(what, () => Promise.resolve([...running].every((r) => sees(r, running.size)) ? true : undefined), 90_000);
    };
    /** Edits every ApplicationSet, waits for every Application, checks who planned and wrote; returns the round's start. */
    const round = async (edit: string, timeoutMs: number): Promise<number> => {
      const start = now();
      for (let i = 0; i < SETS; i += 20)
        await Promise.all(
          names
            .slice(i, i + 20)
            .map((n) =>
              c.patch(
                resources.ApplicationSets,
                { namespace: ns, name: n },
                { type: "merge", body: { spec: { template: { metadata: { labels: { edit } } } } } },
              ),
            ),
        );
      await eventually(
        `every Application labelled edit=${edit}`,
        () => Promise.resolve(names.every((n) => apps.editedAt(`${n}-app`, edit) !== undefined) ? true : undefined),
        timeoutMs,
      );
      const done = now();
      console.log(
        `sharding-scale: ${String(running.size)} replicas applied edit ${edit} of ${String(SETS)} ApplicationSets in ${seconds(done - start)} s`,
      );
      // Let late writes and lines arrive before counting them.
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      // Each ApplicationSet planned by exactly one replica in the round, its owner when it planned.
      const planners = new Map<string, Set<string>>();
      const wrongOwner: string[] = [];
      for (const p of procs)
        for (const pl of plans(p)) {
          if (pl.at < start) continue;
          planners.set(pl.set, (planners.get(pl.set) ?? new Set()).add(pl.replica));
          const owner = members.ownerAt(`${ns}/${pl.set}`, pl.at);
          if (!members.ownedWithin(`${ns}/${pl.set}`, pl.replica, pl.at, pl.at + WATCH_LAG_MS))
            wrongOwner.push(`${pl.set} planned by ${pl.replica}, owned by ${String(owner)}`);
        }
      expect(wrongOwner.slice(0, 10)).toEqual([]);
      expect(names.filter((n) => planners.get(n)?.size !== 1)).toEqual([]);
      // Each Application written once for the change.
      const counts = apps.countsSince(start);
      expect(names.filter((n) => counts.get(`${n}-app`) !== 1).map((n) => `${n}-app: ${String(counts.get(`${n}-app`))}`)).toEqual([]);
      return start;
    };

    // (1) Three replicas.
    await settled("three members seen by every replica");
    await eventually("an Application per ApplicationSet", () => Promise.resolve(apps.writes.size === SETS ? true : undefined), 120_000);
    const three = [...running];
    await round("1", 60_000);

    // (2) SIGKILL the replica that owns the most; its ApplicationSets wait for its Lease to expire.
    const ownedBy = (r: ControllerProcess, t: number): string[] => names.filter((n) => members.ownerAt(`${ns}/${n}`, t) === id(r));
    const victim = three.reduce((a, b) => (ownedBy(b, now()).length > ownedBy(a, now()).length ? b : a));
    const orphans = ownedBy(victim, now());
    victim.child.kill("SIGKILL");
    await victim.exited;
    const killedAt = now();
    running.delete(victim);
    await round("2", LEASE_MS + PASS_MS + 60_000);
    const expiredAt = members.changes.find((ch) => ch.at > killedAt && !ch.live.includes(id(victim)))?.at;
    /**
     * Waits until each set has been planned by its owner now, from its `since` on (less the watch's
     * lag: a replica may act on a change before the watch reports it), within `timeoutMs`; returns
     * how long after `since` each was first planned (0 when a little before).
     */
    const takeovers = (what: string, sets: ReadonlyArray<{ set: string; since: number }>, timeoutMs: number): Promise<number[]> => {
      const t = now();
      const owners = new Map(sets.map(({ set }) => [set, members.ownerAt(`${ns}/${set}`, t)]));
      const from = Math.min(...sets.map((s) => s.since)) - WATCH_LAG_MS;
      return eventually(
        what,
        () => {
          const first = new Map<string, Plan[]>();
          for (const p of procs)
            for (const pl of plans(p))
              if (pl.at >= from && owners.get(pl.set) === pl.replica) first.set(pl.set, [...(first.get(pl.set) ?? []), pl]);
          const delays = sets.map(({ set, since }) => {
            const at = first.get(set)?.find((pl) => pl.at >= since - WATCH_LAG_MS)?.at;
            return at === undefined ? undefined : Math.max(0, at - since);
          });
          return Promise.resolve(delays.every((d) => d !== undefined) ? delays : undefined);
        },
        timeoutMs,
      );
    };
    const killWaits = orphans.map((n) => apps.editedAt(`${n}-app`, "2")! - killedAt);
    const killTakeovers = await takeovers(
      "the killed replica's ApplicationSets planned by their new owners",
      orphans.map((set) => ({ set, since: killedAt })),
      30_000,
    );
    console.log(
      `sharding-scale: SIGKILL of a replica owning ${String(orphans.length)} ApplicationSets: its Lease expired (test's watch) after ${expiredAt === undefined ? "?" : seconds(expiredAt - killedAt)} s; ` +
        `its ApplicationSets were first planned again after ${seconds(Math.min(...killTakeovers))}-${seconds(Math.max(...killTakeovers))} s, ` +
        `their Applications updated after ${seconds(Math.min(...killWaits))}-${seconds(Math.max(...killWaits))} s (bound ${seconds(LEASE_MS + PASS_MS)} s)`,
    );
    expect(Math.max(...killWaits)).toBeLessThanOrEqual(LEASE_MS + PASS_MS);

    // (3) Two more start: four live.
    const joined = [spawn(), spawn()];
    for (const j of joined) running.add(j);
    await settled("four members seen by every replica");
    await eventually("the newcomers' identities", () => Promise.resolve(joined.every((j) => identity(j) !== undefined) ? true : undefined));
    const joinTakeovers = await takeovers(
      "the newcomers' ApplicationSets planned by them",
      joined.flatMap((j) => {
        const since = members.joinedAt(id(j))!;
        return names.filter((set) => members.ownerAt(`${ns}/${set}`, now()) === id(j)).map((set) => ({ set, since }));
      }),
      60_000,
    );
    console.log(
      `sharding-scale: two replicas joined and took ${String(joinTakeovers.length)} ApplicationSets, first planned ${seconds(Math.min(...joinTakeovers))}-${seconds(Math.max(...joinTakeovers))} s after their Leases appeared (renew deadline ${seconds(RENEW_DEADLINE_MS)} s)`,
    );
    expect(Math.max(...joinTakeovers)).toBeLessThanOrEqual(RENEW_DEADLINE_MS + GRACE_MS + 10_000);
    await round("3", 60_000);

    // (4) SIGTERM two (one of the first three, one newcomer): their Leases are deleted, two live.
    const stopped = [three.find((r) => r !== victim)!, joined[0]!];
    const before = now();
    const handed = stopped.map((r) => ownedBy(r, before));
    for (const r of stopped) r.child.kill("SIGTERM");
    expect(await Promise.all(stopped.map((r) => r.exited))).toEqual([0, 0]);
    for (const r of stopped) running.delete(r);
    await eventually("the stopped replicas' Leases deleted", () =>
      Promise.resolve(stopped.every((r) => members.deletedAt(id(r)) !== undefined) ? true : undefined),
    );
    await settled("two members seen by every replica");
    const stopTakeovers = await takeovers(
      "the stopped replicas' ApplicationSets planned by the two left",
      stopped.flatMap((r, i) => {
        // The Lease's deletion: the earlier of the watch's event and the replica's own line after it.
        const left = r.logs.find((l) => l["msg"] === "left shard group");
        const gone = Math.min(members.deletedAt(id(r))!, left === undefined ? Infinity : Date.parse(String(left["time"])));
        return handed[i]!.map((set) => ({ set, since: gone }));
      }),
      60_000,
    );
    console.log(
      `sharding-scale: SIGTERM of two replicas owning ${String(stopTakeovers.length)} ApplicationSets: first planned by the two left ${seconds(Math.min(...stopTakeovers))}-${seconds(Math.max(...stopTakeovers))} s after their Leases were deleted (bound ${seconds(GRACE_MS)} s)`,
    );
    expect(Math.max(...stopTakeovers)).toBeLessThanOrEqual(GRACE_MS);
    await round("4", 60_000);

    // Across the whole run: every planned line was its owner's, or its former owner's within the grace
    // after the change (a peer drops a newcomer's keys at its next list; a pass already started ends).
    const stray: string[] = [];
    for (const p of procs)
      for (const pl of plans(p)) {
        const key = `${ns}/${pl.set}`;
        if (!members.ownedWithin(key, pl.replica, pl.at - GRACE_MS, pl.at + WATCH_LAG_MS)) stray.push(`${pl.set} planned by ${pl.replica}`);
      }
    expect(stray.slice(0, 10)).toEqual([]);
    expect(members.strayMoves).toEqual([]);
    for (const ch of members.changes) expect([...ch.owned.values()].reduce((a, b) => a + b, 0)).toBe(ch.live.length === 0 ? 0 : SETS);
    console.log(
      `sharding-scale: the members changed ${String(members.changes.length)} times; ApplicationSets per member: ` +
        members.changes.map((ch) => `[${[...ch.owned.values()].join(", ")}]`).join(" -> "),
    );
    for (const r of running) expect(r.child.exitCode).toBeNull();
  }, 300_000);
});
