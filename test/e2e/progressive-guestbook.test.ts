/**
 * The seed's guestbook rollout on the real control plane, end to end: `appset controller
 * --enable-progressive-syncs --enable-sync-engine` in a process of its own turns the ApplicationSet
 * into Applications and deploys them from a local Git repository. Every Application and
 * ApplicationSet change is recorded from a watch, and the rollout is checked from that record: dev
 * first, qa only by hand, prod one at a time (10% of 10), then Reverse deletion prod → qa → dev with
 * the ApplicationSet last.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { resources, type KubeApiClient } from "../../src/kube/index.js";
import { controllerNamespace } from "./support/controller.js";
import {
  appName,
  clusters,
  envSettled,
  guestbookAppSet,
  guestbookRepo,
  manualSync,
  maxUpdating,
  operationsWritten,
  outOfOrderSyncs,
  rolloutController,
  syncsPerRevision,
  type Sizes,
} from "./support/guestbook-rollout.js";
import { RolloutRecorder } from "./support/rollout-recorder.js";
import { e2eSuite } from "./support/suite.js";

const { temp, procs, namespaces, client: suiteClient } = e2eSuite();
let client: KubeApiClient;

beforeAll(() => {
  client = suiteClient();
});

const SIZES: Sizes = { "env-dev": 2, "env-qa": 2, "env-prod": 10 };

describe("the guestbook rollout with the sync engine", () => {
  it("rolls out dev, then qa by hand, then prod one at a time, and deletes prod, qa, dev, then the ApplicationSet", async () => {
    const ns = await controllerNamespace(client, "ps-guestbook");
    namespaces.push(ns);
    const repo = guestbookRepo(temp, SIZES);
    const rec = await RolloutRecorder.start(client, ns);
    try {
      const proc = rolloutController(ns);
      procs.push(proc);
      await proc.waitForLog("caches synced, starting workers");
      await client.create(resources.ApplicationSets, guestbookAppSet(ns, repo, SIZES));

      await envSettled(rec, "env-dev", SIZES["env-dev"], repo.first);
      // qa waits: the controller reports step 2 in progress and writes no operation there.
      await rec.waitFor("step 2 in progress", () =>
        rec.currentSets.get("guestbook")?.progressing === "True: ApplicationSet is performing rollout of step 2" ? true : undefined,
      );
      expect(rec.env("env-qa").map((a) => a.operation)).toEqual([undefined, undefined]);
      for (const a of rec.env("env-qa")) await manualSync(client, ns, a.name, repo.first);
      await envSettled(rec, "env-qa", SIZES["env-qa"], repo.first);
      await envSettled(rec, "env-prod", SIZES["env-prod"], repo.first, 90_000);
      await rec.waitFor("the rollout complete", () =>
        rec.currentSets.get("guestbook")?.progressing?.startsWith("False") ? true : undefined,
      );

      const ops = operationsWritten(rec);
      expect(outOfOrderSyncs(rec)).toEqual([]);
      expect(ops.filter((o) => o.env === "env-qa").map((o) => o.by)).toEqual(["admin", "admin"]);
      expect(ops.filter((o) => o.env !== "env-qa").every((o) => o.by === "applicationset-controller" && o.revision === repo.first)).toBe(
        true,
      );
      expect(maxUpdating(rec, "env-prod")).toBe(1);
      expect([...syncsPerRevision(rec).values()].every((n) => n === 1)).toBe(true);
      expect(syncsPerRevision(rec).size).toBe(clusters(SIZES).length);

      await client.delete(resources.ApplicationSets, { namespace: ns, name: "guestbook" });
      await rec.waitFor("the ApplicationSet gone", () => (rec.currentSets.get("guestbook")?.gone ? true : undefined), 90_000);
      const gone = rec.apps.filter((e) => e.gone).map((e) => e.env);
      expect(gone).toEqual(
        clusters(SIZES)
          .map((c) => c.env)
          .reverse(),
      );
      const setGone = rec.sets.find((s) => s.gone)!;
      expect(Math.max(...rec.apps.filter((e) => e.gone).map((e) => e.seq))).toBeLessThan(setGone.seq);
      expect(new Set(rec.apps.filter((e) => e.gone).map((e) => e.name))).toEqual(new Set(clusters(SIZES).map((c) => appName(c.cluster))));
    } finally {
      if (process.env["ROLLOUT_TRACE"]) console.log(rec.timeline());
      rec.stop();
    }
  }, 180_000);
});
