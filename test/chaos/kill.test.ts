/**
 * kill -9 at random moments: `appset controller --enable-progressive-syncs --enable-sync-engine`
 * rolls the seed's guestbook (dev, qa by hand, prod one at a time) out over three revisions and then
 * deletes it in reverse, while the test SIGKILLs it again and again at seeded random moments (from
 * before its caches are synced to mid-sync). Every Application write is recorded from a watch of
 * the test's own; the invariants: no Application deleted while generated, none synced twice for one
 * revision, no step out of order, `maxUpdate` never exceeded, deletion prod → qa → dev.
 * `APPSET_CHAOS_KILLS` sets the number of kills (default 52), `APPSET_TEST_SEED` the moments.
 */
import { describe, expect, it } from "vitest";
import { resources } from "../../src/kube/index.js";
import { controllerNamespace, type ControllerProcess } from "../e2e/support/controller.js";
import {
  appName,
  clusters,
  guestbookAppSet,
  guestbookRepo,
  refreshAll,
  rolloutController,
  settledAt,
  type Sizes,
} from "../e2e/support/guestbook-rollout.js";
import { RolloutRecorder } from "../e2e/support/rollout-recorder.js";
import { reverseDeletionViolations, rolloutViolations } from "./support/invariants.js";
import { operateQa, QA } from "./support/operator.js";
import { chaosPlane, sleep } from "./support/plane.js";
import { Random } from "./support/random.js";

const plane = chaosPlane();
const SIZES: Sizes = { "env-dev": 2, "env-qa": 1, "env-prod": 4 };
const KILLS = Number(process.env["APPSET_CHAOS_KILLS"] ?? "52");
/** The phases the kills are spread over: three rollouts and the deletion. */
const PHASES = 4;

describe("kill -9 during RollingSync rollouts and Reverse deletion", () => {
  it(`holds every invariant across ${String(KILLS)} kills`, async () => {
    const rnd = new Random();
    const client = plane.client();
    const kubeconfig = plane.cp().kubeconfigPath;
    const ns = await controllerNamespace(client, "chaos-kill");
    const repo = guestbookRepo(plane.temp, SIZES);
    const rec = await RolloutRecorder.start(client, ns, { reconnect: true });
    const names = clusters(SIZES).map((c) => appName(c.cluster));
    let kills = 0;
    const start = (): ControllerProcess => {
      const p = rolloutController(ns, kubeconfig);
      plane.procs.push(p);
      return p;
    };
    /** Runs controllers, killing each at a random moment, `n` times (done or not); then one until `done`. */
    const withKills = async (n: number, done: () => boolean, what: string): Promise<void> => {
      for (let i = 0; i < n; i++) {
        const p = start();
        await sleep(rnd.int(300, 6_000));
        p.child.kill("SIGKILL");
        await p.exited;
        kills++;
      }
      const last = start();
      await rec.waitFor(what, () => (done() ? true : undefined), 240_000);
      last.child.kill("SIGTERM");
      await last.exited;
    };
    const rolledOut = (revision: string) => (): boolean =>
      names.every((n) => settledAt(rec.current.get(n), revision)) &&
      rec.currentSets.get("guestbook")?.progressing?.startsWith("False") === true;
    const perPhase = Math.ceil(KILLS / PHASES);
    try {
      await client.create(resources.ApplicationSets, guestbookAppSet(ns, repo, SIZES));
      const revisions = [repo.first];
      for (let v = 0; v < 3; v++) {
        const revision = v === 0 ? repo.first : repo.push(String(v + 1));
        if (v > 0) {
          revisions.push(revision);
          await refreshAll(client, ns, names);
        }
        const manual = operateQa(rec, client, ns, SIZES, revision);
        await withKills(perPhase, rolledOut(revision), `the rollout of ${revision.slice(0, 7)}`);
        await manual;
      }
      const deletionFromSeq = (rec.apps.at(-1)?.seq ?? 0) + 1;
      await client.delete(resources.ApplicationSets, { namespace: ns, name: "guestbook" });
      await withKills(
        KILLS - kills,
        () => names.every((n) => rec.current.get(n)?.gone === true) && rec.currentSets.get("guestbook")?.gone === true,
        "every Application and the ApplicationSet gone",
      );
      const violations = [
        ...rolloutViolations(rec, { maxProdUpdating: 1, deletionFromSeq, manual: [QA] }),
        ...reverseDeletionViolations(rec),
      ];
      console.log(
        `chaos kill: seed ${String(rnd.seed)}, ${String(kills)} kills, ${String(revisions.length)} revisions rolled out, ` +
          `${String(rec.apps.length)} Application changes recorded, ${String(violations.length)} violations`,
      );
      expect(violations).toEqual([]);
      expect(kills).toBeGreaterThanOrEqual(KILLS);
    } finally {
      if (process.env["ROLLOUT_TRACE"]) console.log(rec.timeline());
      rec.stop();
    }
  }, 1_800_000);
});
