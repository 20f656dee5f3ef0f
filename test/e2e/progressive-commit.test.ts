/**
 * A commit pushed mid-rollout does not hijack the step in progress. The controller
 * (`--enable-progressive-syncs`) and the sync engine (`appset sync-engine`) run as two processes, so
 * the engine can be paused (SIGSTOP) once prod is unblocked: the controller writes the first prod
 * sync, pinned to version 1, while the engine cannot start it. Version 2 is then pushed and every
 * Application refreshed, as Argo CD's webhook does, before the engine resumes. The pinned sync still
 * deploys version 1; version 2 starts again from dev, waits for qa's manual sync, and only then
 * reaches prod, one Application at a time.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { resources, type KubeApiClient, type KubeObject } from "../../src/kube/index.js";
import { controllerNamespace, spawnController } from "./support/controller.js";
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
} from "./support/guestbook-rollout.js";
import { RolloutRecorder } from "./support/rollout-recorder.js";
import { e2eSuite } from "./support/suite.js";

const { temp, procs, namespaces, client: suiteClient } = e2eSuite();
let client: KubeApiClient;

beforeAll(() => {
  client = suiteClient();
});

const SIZES: Sizes = { "env-dev": 1, "env-qa": 1, "env-prod": 4 };
const ADDRS = ["--probe-addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0"];

async function deployedVersion(ns: string, cluster: string): Promise<string | undefined> {
  const cm = await client.get<KubeObject & { data?: Record<string, string> }>(resources.ConfigMaps, {
    namespace: ns,
    name: `${cluster}-guestbook`,
  });
  return cm.data?.["version"];
}

describe("a commit pushed mid-rollout", () => {
  it("leaves the pinned sync of the step in progress on its revision and rolls the new one out from dev again", async () => {
    const ns = await controllerNamespace(client, "ps-commit");
    namespaces.push(ns);
    const repo = guestbookRepo(temp, SIZES);
    const names = clusters(SIZES).map((c) => appName(c.cluster));
    const prod1 = appName("engineering-prod-1");
    const rec = await RolloutRecorder.start(client, ns);
    try {
      const controller = spawnController([
        "--namespace",
        ns,
        ...ADDRS,
        "--enable-progressive-syncs",
        "--refresh-grace-period-seconds",
        "5",
      ]);
      const engine = spawnController(["--namespace", ns, ...ADDRS], "sync-engine");
      procs.push(controller, engine);
      await Promise.all([controller.waitForLog("caches synced, starting workers"), engine.waitForLog("sync engine starting")]);
      await client.create(resources.ApplicationSets, guestbookAppSet(ns, repo, SIZES));
      await envSettled(rec, "env-dev", 1, repo.first);
      await manualSync(client, ns, appName("engineering-qa-1"), repo.first);
      await envSettled(rec, "env-qa", 1, repo.first);
      engine.child.kill("SIGSTOP");
      await rec.waitFor("the first prod sync", () => (rec.current.get(prod1)?.operation?.by === CONTROLLER ? true : undefined));
      expect(rec.current.get(prod1)).toMatchObject({ operation: { revision: repo.first }, opStartedAt: undefined });

      const second = repo.push("2");
      await refreshAll(client, ns, names);
      engine.child.kill("SIGCONT");
      await rec.waitFor("the pinned sync done", () => {
        const a = rec.current.get(prod1);
        return a?.operation === undefined && a?.opRevision === repo.first && a.opPhase === "Succeeded" ? true : undefined;
      });
      expect(await deployedVersion(ns, "engineering-prod-1")).toBe("1");

      await envSettled(rec, "env-dev", 1, second);
      await rec.waitFor("step 2 in progress", () =>
        rec.currentSets.get("guestbook")?.progressing === "True: ApplicationSet is performing rollout of step 2" ? true : undefined,
      );
      expect(rec.env("env-prod").every((a) => a.operation === undefined)).toBe(true);
      await manualSync(client, ns, appName("engineering-qa-1"), second);
      await envSettled(rec, "env-prod", 4, second, 90_000);

      expect(await deployedVersion(ns, "engineering-prod-4")).toBe("2");
      expect(outOfOrderSyncs(rec)).toEqual([]);
      expect(maxUpdating(rec, "env-prod")).toBe(1);
      const prodOps = operationsWritten(rec).filter((o) => o.env === "env-prod");
      expect(prodOps.map((o) => [o.name, o.revision === repo.first ? "1" : o.revision === second ? "2" : o.revision])).toEqual([
        [prod1, "1"],
        ...["1", "2", "3", "4"].map((i) => [appName(`engineering-prod-${i}`), "2"]),
      ]);
      expect([...syncsPerRevision(rec).values()].every((n) => n === 1)).toBe(true);
    } finally {
      if (process.env["ROLLOUT_TRACE"]) console.log(rec.timeline());
      rec.stop();
    }
  }, 150_000);
});
