/**
 * An existing AllAtOnce ApplicationSet whose template asks for automated sync with prune, synced by
 * Argo CD's application controller, is switched to RollingSync. Autosync must go off on every
 * Application (read back from the apiserver: `automated.enabled: false`, prune kept) or Argo CD keeps
 * auto-syncing and defeats the rollout; the rollout completes, and a new commit then reaches prod
 * only through our controller's syncs, after dev is Healthy at it.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { resources, type KubeApiClient, type KubeObject } from "../../src/kube/index.js";
import { applications, eventually } from "../e2e/support/controller.js";
import {
  appName,
  clusters,
  CONTROLLER,
  envSettled,
  guestbookAppSet,
  guestbookRepo,
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

type Spec = { strategy?: unknown; template: { spec: Record<string, unknown> } };

describe("switching an AllAtOnce ApplicationSet with automated sync to RollingSync", () => {
  it("turns autosync off on every Application, completes the rollout, and syncs a new commit in step order", async () => {
    const SIZES: Sizes = { "env-dev": 2, "env-qa": 0, "env-prod": 2 };
    const { ns } = await suite.namespaceWithArgoCd("argo-switch");
    const repo = guestbookRepo(suite.temp, SIZES);
    const names = clusters(SIZES).map((c) => appName(c.cluster));
    const rec = await RolloutRecorder.start(client, ns);
    try {
      const ours = suite.ourController(ns);
      await ours.waitForLog("caches synced, starting workers");
      const appSet = guestbookAppSet(ns, repo, SIZES) as KubeObject & { spec: Spec };
      const rolling = appSet.spec.strategy;
      delete appSet.spec.strategy;
      appSet.spec.template.spec["syncPolicy"] = { automated: { prune: true } };
      await client.create(resources.ApplicationSets, appSet);
      // AllAtOnce: Argo CD auto-syncs every Application on its own.
      await envSettled(rec, "env-prod", 2, repo.first, 90_000);
      await envSettled(rec, "env-dev", 2, repo.first, 90_000);
      expect(operationsWritten(rec).every((o) => o.by !== CONTROLLER)).toBe(true);

      await client.patch(
        resources.ApplicationSets,
        { namespace: ns, name: "guestbook" },
        { type: "merge", body: { spec: { strategy: rolling } } },
      );
      const policies = await eventually(
        "autosync off on every Application",
        async () => {
          const apps = [...(await applications(client, ns)).values()];
          const automated = apps.map((a) => a.spec.syncPolicy?.automated);
          return apps.length === names.length && automated.every((x) => x?.enabled === false) ? automated : undefined;
        },
        60_000,
      );
      expect(policies).toEqual(names.map(() => ({ enabled: false, prune: true })));
      await rec.waitFor(
        "the rollout complete",
        () => (rec.currentSets.get("guestbook")?.progressing?.startsWith("False") ? true : undefined),
        90_000,
      );

      const before = rec.apps.length;
      const second = repo.push("2");
      await refreshAll(client, ns, names);
      await envSettled(rec, "env-prod", 2, second, 150_000);
      const after = operationsWritten(rec).filter((o) => o.seq >= before);
      expect(after.map((o) => [o.by, o.revision])).toEqual(names.map(() => [CONTROLLER, second]));
      expect(after.slice(0, 2).map((o) => o.env)).toEqual(["env-dev", "env-dev"]);
      expect(outOfOrderSyncs(rec)).toEqual([]);
      const perRevision = syncsPerRevision(rec);
      expect(names.map((n) => perRevision.get(`${n}@${second}`))).toEqual(names.map(() => 1));
    } finally {
      if (process.env["ROLLOUT_TRACE"]) console.log(rec.timeline());
      rec.stop();
    }
  }, 420_000);
});
