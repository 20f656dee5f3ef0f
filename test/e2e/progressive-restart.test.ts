/**
 * The controller killed mid-rollout: `appset controller --enable-progressive-syncs
 * --enable-sync-engine` gets SIGKILL right after it wrote the sync of the second prod Application
 * (the sync engine, in the same process, dies with it, often mid-sync). A new process resumes at
 * the same step: dev and qa stay Healthy, every prod Application is synced, one at a time, and no
 * Application is synced twice for one revision.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { resources, type KubeApiClient } from "../../src/kube/index.js";
import { controllerNamespace } from "./support/controller.js";
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

const SIZES: Sizes = { "env-dev": 1, "env-qa": 1, "env-prod": 4 };

describe("a controller killed mid-rollout", () => {
  it("resumes at the same step after a restart, skips no Application and syncs none twice for one revision", async () => {
    const ns = await controllerNamespace(client, "ps-restart");
    namespaces.push(ns);
    const repo = guestbookRepo(temp, SIZES);
    const rec = await RolloutRecorder.start(client, ns);
    try {
      const first = rolloutController(ns);
      procs.push(first);
      await first.waitForLog("caches synced, starting workers");
      await client.create(resources.ApplicationSets, guestbookAppSet(ns, repo, SIZES));
      await envSettled(rec, "env-dev", 1, repo.first);
      await manualSync(client, ns, appName("engineering-qa-1"), repo.first);
      const prod2 = appName("engineering-prod-2");
      await rec.waitFor("the sync of the second prod Application", () =>
        rec.current.get(prod2)?.operation?.by === CONTROLLER ? true : undefined,
      );
      first.child.kill("SIGKILL");
      expect(await first.exited).toBe("SIGKILL");
      const killedAt = rec.apps.at(-1)!.seq;
      const progressAtKill = rec.currentSets.get("guestbook")?.progressing;

      const second = rolloutController(ns);
      procs.push(second);
      await envSettled(rec, "env-prod", 4, repo.first);
      await rec.waitFor("the rollout complete", () =>
        rec.currentSets.get("guestbook")?.progressing?.startsWith("False") ? true : undefined,
      );
      second.child.kill("SIGTERM");
      await second.exited;

      expect(progressAtKill).toBe("True: ApplicationSet is performing rollout of step 3");
      const after = rec.sets.filter((s) => s.seq > killedAt);
      expect(after.filter((s) => s.progressing?.startsWith("True") && !s.progressing.endsWith("step 3"))).toEqual([]);
      const earlierSteps = after.flatMap((s) => s.entries.filter(([, step, status]) => step !== "3" && status !== "Healthy"));
      expect(earlierSteps).toEqual([]);
      expect(outOfOrderSyncs(rec)).toEqual([]);
      expect(maxUpdating(rec, "env-prod")).toBe(1);
      const syncs = syncsPerRevision(rec);
      expect([...syncs.keys()].sort()).toEqual(
        clusters(SIZES)
          .map((c) => `${appName(c.cluster)}@${repo.first}`)
          .sort(),
      );
      expect([...syncs.values()].every((n) => n === 1)).toBe(true);
      const ops = operationsWritten(rec).map((o) => o.name);
      expect(ops.length).toBe(new Set(ops).size);
    } finally {
      if (process.env["ROLLOUT_TRACE"]) console.log(rec.timeline());
      rec.stop();
    }
  }, 120_000);
});
