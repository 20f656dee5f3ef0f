/**
 * Sharded replicas killed during RollingSync rollouts (docs/sharding.md): three `appset controller
 * --enable-sharding --enable-progressive-syncs --enable-sync-engine` processes (no leader election:
 * the ApplicationSet and the Applications are shared out among them, the sync engine's too) roll
 * the seed's guestbook (dev, qa by hand, prod one at a time) out over three revisions while the test
 * SIGKILLs a random replica at seeded random moments and starts a new one in its place, so three
 * are always running. The invariants of the kill suite, from a watch of the test's own: no
 * Application synced twice for one revision, no operation written twice, no step out of order,
 * `maxUpdate` never exceeded. `APPSET_CHAOS_SHARD_KILLS` sets the kills (default 9),
 * `APPSET_TEST_SEED` the moments and the victims.
 */
import { describe, expect, it } from "vitest";
import { resources } from "../../src/kube/index.js";
import { controllerNamespace, processArgs, spawnController, type ControllerProcess } from "../e2e/support/controller.js";
import { appName, clusters, guestbookAppSet, guestbookRepo, refreshAll, settledAt, type Sizes } from "../e2e/support/guestbook-rollout.js";
import { RolloutRecorder } from "../e2e/support/rollout-recorder.js";
import { rolloutViolations } from "./support/invariants.js";
import { operateQa, QA } from "./support/operator.js";
import { chaosPlane, sleep } from "./support/plane.js";
import { Random } from "./support/random.js";

const plane = chaosPlane();
const SIZES: Sizes = { "env-dev": 2, "env-qa": 1, "env-prod": 4 };
const KILLS = Number(process.env["APPSET_CHAOS_SHARD_KILLS"] ?? "9");
const REPLICAS = 3;
const ROLLOUTS = 3;

describe("sharded replicas killed during RollingSync rollouts", () => {
  it(`hold every rollout invariant across ${String(KILLS)} kills of ${String(REPLICAS)} replicas`, async () => {
    const rnd = new Random();
    const client = plane.client();
    const kubeconfig = plane.cp().kubeconfigPath;
    const ns = await controllerNamespace(client, "chaos-shard");
    const repo = guestbookRepo(plane.temp, SIZES);
    const rec = await RolloutRecorder.start(client, ns, { reconnect: true });
    const names = clusters(SIZES).map((c) => appName(c.cluster));
    const args = processArgs(
      ns,
      "--enable-sharding",
      "--enable-progressive-syncs",
      "--enable-sync-engine",
      "--refresh-grace-period-seconds",
      "5",
    );
    const start = (): ControllerProcess => {
      const p = spawnController(args, "controller", kubeconfig);
      plane.procs.push(p);
      return p;
    };
    const running: ControllerProcess[] = Array.from({ length: REPLICAS }, start);
    let kills = 0;
    /** Kills a random replica and starts another in its place, `n` times at random moments. */
    const killSome = async (n: number): Promise<void> => {
      for (let i = 0; i < n; i++) {
        await sleep(rnd.int(2_000, 8_000));
        const victim = rnd.int(0, REPLICAS - 1);
        running[victim]!.child.kill("SIGKILL");
        await running[victim]!.exited;
        kills++;
        running[victim] = start();
      }
    };
    const rolledOut = (revision: string) => (): true | undefined =>
      names.every((n) => settledAt(rec.current.get(n), revision)) &&
      rec.currentSets.get("guestbook")?.progressing?.startsWith("False") === true
        ? true
        : undefined;
    const perRollout = Math.ceil(KILLS / ROLLOUTS);
    try {
      await client.create(resources.ApplicationSets, guestbookAppSet(ns, repo, SIZES));
      let qaSyncs = 0;
      for (let v = 0; v < ROLLOUTS; v++) {
        const revision = v === 0 ? repo.first : repo.push(String(v + 1));
        if (v > 0) await refreshAll(client, ns, names);
        const manual = operateQa(rec, client, ns, SIZES, revision);
        await killSome(perRollout);
        await rec.waitFor(`the rollout of ${revision.slice(0, 7)}`, rolledOut(revision), 300_000);
        qaSyncs += await manual;
      }
      const violations = rolloutViolations(rec, { maxProdUpdating: 1, manual: [QA] });
      console.log(
        `chaos shard kill: seed ${String(rnd.seed)}, ${String(kills)} kills of ${String(REPLICAS)} sharded replicas, ` +
          `${String(ROLLOUTS)} revisions rolled out (qa synced by hand ${String(qaSyncs)} times), ` +
          `${String(rec.apps.length)} Application changes recorded, ${String(violations.length)} violations`,
      );
      expect(violations).toEqual([]);
      expect(kills).toBeGreaterThanOrEqual(KILLS);
    } finally {
      if (process.env["ROLLOUT_TRACE"]) console.log(rec.timeline());
      rec.stop();
      for (const p of running) p.child.kill("SIGTERM");
      await Promise.all(running.map((p) => p.exited));
    }
  }, 1_800_000);
});
