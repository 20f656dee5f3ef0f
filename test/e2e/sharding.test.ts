/**
 * Sharded replicas on the real control plane (docs/sharding.md): three controller processes with
 * `--enable-sharding` share 30 ApplicationSets. Once the three have joined, an edit of every
 * ApplicationSet is planned by exactly one replica each, the one the assignment rule names; after one
 * replica is SIGKILLed, an edit of every ApplicationSet reaches every Application through the two
 * left, within one lease duration and a pass. Who planned what is read from the replicas' debug
 * lines ("planned", with the ApplicationSet's name).
 */
import { afterAll, describe, expect, it } from "vitest";
import { resources } from "../../src/kube/index.js";
import { ownerOf } from "../../src/shard/index.js";
import {
  applications,
  controllerNamespace,
  eventually,
  listAppSet,
  processArgs,
  sharedClient,
  spawnController,
  type ControllerProcess,
} from "./support/controller.js";

const SETS = 30;
/** One lease duration at the defaults: a dead member's keys move within it (docs/sharding.md#timings). */
const HANDOVER_MS = 15_000;

const procs: ControllerProcess[] = [];

afterAll(async () => {
  for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGKILL");
  await Promise.all(procs.map((p) => p.exited));
});

/** The ApplicationSets a replica planned from log line `from` on. */
function planned(p: ControllerProcess, from: number): string[] {
  return p.logs
    .slice(from)
    .filter((l) => l["msg"] === "planned")
    .map((l) => (l["applicationset"] as { Name?: string } | undefined)?.Name ?? "");
}

/** Sets label `edit` on every ApplicationSet's template. */
async function editAll(ns: string, edit: string): Promise<void> {
  const client = sharedClient();
  for (let i = 0; i < SETS; i++) {
    await client.patch(
      resources.ApplicationSets,
      { namespace: ns, name: `s${String(i)}` },
      { type: "merge", body: { spec: { template: { metadata: { labels: { edit } } } } } },
    );
  }
}

/** Resolves once every Application carries label `edit`. */
async function allEdited(ns: string, edit: string, timeoutMs: number): Promise<void> {
  await eventually(
    `every Application labelled edit=${edit}`,
    async () => {
      const apps = await applications(sharedClient(), ns);
      return apps.size === SETS && [...apps.values()].every((a) => a.metadata.labels?.["edit"] === edit) ? true : undefined;
    },
    timeoutMs,
  );
}

describe("sharded replicas", () => {
  it(`share ${String(SETS)} ApplicationSets among three replicas, each planned by one, and hand a killed replica's over`, async () => {
    const client = sharedClient();
    const ns = await controllerNamespace(client, "shard");
    for (let i = 0; i < SETS; i++) await client.create(resources.ApplicationSets, listAppSet(`s${String(i)}`, ns, [`s${String(i)}-app`]));
    const replicas = [0, 1, 2].map(() => spawnController(processArgs(ns, "--enable-sharding", "--loglevel", "debug")));
    procs.push(...replicas);
    // Every replica sees three members, itself among them (a newcomer counts itself after one renew deadline).
    await eventually(
      "three members seen by every replica",
      () =>
        Promise.resolve(
          replicas.every((r) =>
            r.logs.some(
              (l) => l["msg"] === "shard group members changed" && (l["members"] as string[]).length === 3 && l["selfLive"] === true,
            ),
          )
            ? true
            : undefined,
        ),
      60_000,
    );
    await eventually(
      "an Application per ApplicationSet",
      async () => ((await applications(client, ns)).size === SETS ? true : undefined),
      60_000,
    );

    const mark = replicas.map((r) => r.logs.length);
    const started = performance.now();
    await editAll(ns, "1");
    await allEdited(ns, "1", 30_000);
    console.log(
      `sharding: 3 replicas applied an edit of ${String(SETS)} ApplicationSets in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    const byReplica = replicas.map((r, i) => planned(r, mark[i]!));
    const owners = new Map<string, number[]>();
    byReplica.forEach((sets, i) => new Set(sets).forEach((s) => owners.set(s, [...(owners.get(s) ?? []), i])));
    expect([...owners.values()].filter((o) => o.length !== 1)).toEqual([]);
    expect(owners.size).toBe(SETS);
    // Each replica planned exactly the ApplicationSets the assignment rule gives it.
    const identities = replicas.map((r) => String(r.logs.find((l) => l["msg"] === "shard group members changed")?.["replica"]));
    const names = Array.from({ length: SETS }, (_, i) => `s${String(i)}`);
    const assigned = identities.map((id) => names.filter((n) => ownerOf(`${ns}/${n}`, identities) === id).sort());
    expect(byReplica.map((sets) => [...new Set(sets)].sort())).toEqual(assigned);

    // SIGKILL the replica that owns the most; the other two take its ApplicationSets over.
    const counts = byReplica.map((sets) => new Set(sets).size);
    const victim = counts.indexOf(Math.max(...counts));
    replicas[victim]!.child.kill("SIGKILL");
    await replicas[victim]!.exited;
    const killedAt = performance.now();
    await editAll(ns, "2");
    await allEdited(ns, "2", HANDOVER_MS + 20_000);
    const handover = performance.now() - killedAt;
    console.log(
      `sharding: after a replica owning ${String(counts[victim])} ApplicationSets was killed, every edit arrived in ${(handover / 1000).toFixed(1)} s`,
    );
    expect(handover).toBeLessThanOrEqual(HANDOVER_MS + 20_000);
    for (const [i, r] of replicas.entries()) if (i !== victim) expect(r.child.exitCode).toBeNull();
  }, 180_000);
});
