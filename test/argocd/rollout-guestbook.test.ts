/**
 * The seeds' guestbook RollingSync beside Argo CD v3.6: our controller plans the rollout and writes
 * the sync operations, Argo CD's application controller and repo-server run them, on Argo CD's CRDs.
 * Every Application and ApplicationSet change is recorded from a watch and the rollout is judged on
 * that record: dev first, qa only by hand (`maxUpdate: 0`, synced through `operation` as `argocd app
 * sync` does), prod one at a time (10% of 10), each Application synced once per revision, then
 * Reverse deletion prod → qa → dev with the ApplicationSet last. A second case pushes a commit
 * mid-rollout, with Argo CD's application controller frozen while the first prod sync is written:
 * the pinned sync deploys the old revision, and the new one starts again from dev.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { resources, type KubeApiClient, type KubeObject } from "../../src/kube/index.js";
import {
  appName,
  clusters,
  CONTROLLER,
  envSettled,
  guestbookAppSet,
  guestbookRepo,
  manualSync,
  maxUpdating,
  operationsWritten,
  outOfOrderSyncs,
  refreshAll,
  syncsPerRevision,
  type Sizes,
} from "../e2e/support/guestbook-rollout.js";
import { RolloutRecorder } from "../e2e/support/rollout-recorder.js";
import { besideSuite } from "./support/beside.js";

const suite = besideSuite();
let client: KubeApiClient;

beforeAll(() => {
  client = suite.client();
});

async function deployedVersion(ns: string, cluster: string): Promise<string | undefined> {
  const cm = await client.get<KubeObject & { data?: Record<string, string> }>(resources.ConfigMaps, {
    namespace: ns,
    name: `${cluster}-guestbook`,
  });
  return cm.data?.["version"];
}

describe("the guestbook RollingSync synced by Argo CD's application controller", () => {
  it("rolls out dev, qa by hand, prod one at a time, each Application synced once, then deletes prod, qa, dev", async () => {
    const SIZES: Sizes = { "env-dev": 2, "env-qa": 2, "env-prod": 10 };
    const { ns } = await suite.namespaceWithArgoCd("argo-guestbook");
    const repo = guestbookRepo(suite.temp, SIZES);
    const rec = await RolloutRecorder.start(client, ns);
    try {
      const ours = suite.ourController(ns);
      await ours.waitForLog("caches synced, starting workers");
      await client.create(resources.ApplicationSets, guestbookAppSet(ns, repo, SIZES));

      await envSettled(rec, "env-dev", SIZES["env-dev"], repo.first, 90_000);
      await rec.waitFor("step 2 in progress", () =>
        rec.currentSets.get("guestbook")?.progressing === "True: ApplicationSet is performing rollout of step 2" ? true : undefined,
      );
      expect(rec.env("env-qa").map((a) => a.operation)).toEqual([undefined, undefined]);
      for (const a of rec.env("env-qa")) await manualSync(client, ns, a.name, repo.first);
      await envSettled(rec, "env-qa", SIZES["env-qa"], repo.first, 90_000);
      await envSettled(rec, "env-prod", SIZES["env-prod"], repo.first, 150_000);
      await rec.waitFor("the rollout complete", () =>
        rec.currentSets.get("guestbook")?.progressing?.startsWith("False") ? true : undefined,
      );

      const ops = operationsWritten(rec);
      expect(outOfOrderSyncs(rec)).toEqual([]);
      expect(ops.filter((o) => o.env === "env-qa").map((o) => o.by)).toEqual(["admin", "admin"]);
      expect(ops.filter((o) => o.env !== "env-qa").every((o) => o.by === CONTROLLER && o.revision === repo.first)).toBe(true);
      expect(maxUpdating(rec, "env-prod")).toBe(1);
      const perRevision = syncsPerRevision(rec);
      expect(Object.fromEntries([...perRevision].filter(([, n]) => n !== 1))).toEqual({});
      expect(perRevision.size).toBe(clusters(SIZES).length);
      expect(await deployedVersion(ns, "engineering-prod-10")).toBe("1");

      await client.delete(resources.ApplicationSets, { namespace: ns, name: "guestbook" });
      await rec.waitFor("the ApplicationSet gone", () => (rec.currentSets.get("guestbook")?.gone ? true : undefined), 150_000);
      const gone = rec.apps.filter((e) => e.gone).map((e) => e.env);
      expect(gone).toEqual(
        clusters(SIZES)
          .map((c) => c.env)
          .reverse(),
      );
      const setGone = rec.sets.find((s) => s.gone)!;
      expect(Math.max(...rec.apps.filter((e) => e.gone).map((e) => e.seq))).toBeLessThan(setGone.seq);
      // Argo CD's resources finalizer ran: the deployed objects went with their Applications.
      const left = await client.list(resources.ConfigMaps, { namespace: ns });
      expect(left.items.map((c) => c.metadata?.name).filter((n) => n?.endsWith("-guestbook"))).toEqual([]);
    } finally {
      if (process.env["ROLLOUT_TRACE"]) console.log(rec.timeline());
      rec.stop();
    }
  }, 420_000);

  it("keeps the pinned prod sync on its revision when a commit lands mid-rollout, and rolls the new one out from dev", async () => {
    const SIZES: Sizes = { "env-dev": 1, "env-qa": 1, "env-prod": 4 };
    const { ns, argo } = await suite.namespaceWithArgoCd("argo-commit");
    const repo = guestbookRepo(suite.temp, SIZES);
    const names = clusters(SIZES).map((c) => appName(c.cluster));
    const prod1 = appName("engineering-prod-1");
    const rec = await RolloutRecorder.start(client, ns);
    try {
      const ours = suite.ourController(ns);
      await ours.waitForLog("caches synced, starting workers");
      await client.create(resources.ApplicationSets, guestbookAppSet(ns, repo, SIZES));
      await envSettled(rec, "env-dev", 1, repo.first, 90_000);
      await manualSync(client, ns, appName("engineering-qa-1"), repo.first);
      await envSettled(rec, "env-qa", 1, repo.first, 90_000);
      argo.pause();
      await rec.waitFor("the first prod sync", () => (rec.current.get(prod1)?.operation?.by === CONTROLLER ? true : undefined));
      expect(rec.current.get(prod1)).toMatchObject({ operation: { revision: repo.first }, opStartedAt: undefined });

      const second = repo.push("2");
      await refreshAll(client, ns, names);
      argo.resume();
      await rec.waitFor(
        "the pinned sync done",
        () => {
          const a = rec.current.get(prod1);
          return a?.operation === undefined && a?.opRevision === repo.first && a.opPhase === "Succeeded" ? true : undefined;
        },
        90_000,
      );
      expect(await deployedVersion(ns, "engineering-prod-1")).toBe("1");

      await envSettled(rec, "env-dev", 1, second, 90_000);
      await rec.waitFor(
        "step 2 in progress",
        () => (rec.currentSets.get("guestbook")?.progressing === "True: ApplicationSet is performing rollout of step 2" ? true : undefined),
        90_000,
      );
      expect(rec.env("env-prod").every((a) => a.operation === undefined)).toBe(true);
      await manualSync(client, ns, appName("engineering-qa-1"), second);
      await envSettled(rec, "env-prod", 4, second, 150_000);

      expect(await deployedVersion(ns, "engineering-prod-4")).toBe("2");
      expect(outOfOrderSyncs(rec)).toEqual([]);
      expect(maxUpdating(rec, "env-prod")).toBe(1);
      const prodOps = operationsWritten(rec).filter((o) => o.env === "env-prod");
      expect(prodOps.map((o) => [o.name, o.revision === repo.first ? "1" : o.revision === second ? "2" : o.revision])).toEqual([
        [prod1, "1"],
        ...["1", "2", "3", "4"].map((i) => [appName(`engineering-prod-${i}`), "2"]),
      ]);
      expect(Object.fromEntries([...syncsPerRevision(rec)].filter(([, n]) => n !== 1))).toEqual({});
    } finally {
      if (process.env["ROLLOUT_TRACE"]) console.log(rec.timeline());
      rec.stop();
    }
  }, 420_000);
});
