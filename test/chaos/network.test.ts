/**
 * The network failing under the controller. Connection cuts: the controller reaches the apiserver
 * through a loopback proxy that cuts every connection at seeded random intervals of 1–4 s while it
 * rolls the guestbook out over six revisions (`APPSET_CHAOS_REVISIONS`); the invariants of the kill suite must hold (no double
 * sync above all: a stale cached ApplicationSet must not set an Application back to Pending).
 * Apiserver restarts: the apiserver is stopped for 10 s and started again, twice; an edit made as
 * soon as it is back must reach every Application within 20 s.
 */
import { describe, expect, it } from "vitest";
import { resources } from "../../src/kube/index.js";
import { applications, controllerNamespace, listAppSet, processArgs, readAppSet, spawnController } from "../e2e/support/controller.js";
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
import { startCutProxy } from "./support/cut-proxy.js";
import { View } from "./support/view.js";
import { rolloutViolations } from "./support/invariants.js";
import { operateQa, QA } from "./support/operator.js";
import { chaosPlane, sleep } from "./support/plane.js";
import { Random } from "./support/random.js";

const plane = chaosPlane();
const SIZES: Sizes = { "env-dev": 2, "env-qa": 1, "env-prod": 4 };
const CONVERGE_WITHIN_MS = 20_000;
/** Revisions rolled out under the cuts (`APPSET_CHAOS_REVISIONS`). */
const REVISIONS = Number(process.env["APPSET_CHAOS_REVISIONS"] ?? "6");

describe("connection cuts", () => {
  it(`hold every rollout invariant over ${String(REVISIONS)} revisions while every connection of the controller is cut every 1–4 s`, async () => {
    const rnd = new Random();
    const client = plane.client();
    const ns = await controllerNamespace(client, "chaos-cut");
    const repo = guestbookRepo(plane.temp, SIZES);
    const proxy = await startCutProxy(plane.cp().kubeconfigPath, plane.temp.make("appset-chaos-proxy-"));
    const rec = await RolloutRecorder.start(client, ns, { reconnect: true });
    const names = clusters(SIZES).map((c) => appName(c.cluster));
    const ctl = rolloutController(ns, proxy.kubeconfigPath);
    plane.procs.push(ctl);
    let cutting = true;
    const cutter = (async () => {
      while (cutting) {
        await sleep(rnd.int(1_000, 4_000));
        if (cutting) proxy.cutAll();
      }
    })();
    try {
      await client.create(resources.ApplicationSets, guestbookAppSet(ns, repo, SIZES));
      const revisions: string[] = [];
      let qaSyncs = 0;
      for (let i = 0; i < REVISIONS; i++) {
        const revision = i === 0 ? repo.first : repo.push(String(i + 1));
        revisions.push(revision);
        if (i > 0) await refreshAll(client, ns, names);
        qaSyncs += await operateQa(rec, client, ns, SIZES, revision);
        await rec.waitFor(
          `the rollout of ${revision.slice(0, 7)}`,
          () =>
            names.every((n) => settledAt(rec.current.get(n), revision)) &&
            rec.currentSets.get("guestbook")?.progressing?.startsWith("False") === true
              ? true
              : undefined,
          300_000,
        );
      }
      cutting = false;
      await cutter;
      const violations = rolloutViolations(rec, { maxProdUpdating: 1, manual: [QA] });
      console.log(
        `chaos cuts: seed ${String(rnd.seed)}, ${String(proxy.cuts())} connections cut, ${String(revisions.length)} revisions rolled out ` +
          `(qa synced by hand ${String(qaSyncs)} times), ${String(violations.length)} violations`,
      );
      expect(violations).toEqual([]);
      expect(proxy.cuts()).toBeGreaterThan(0);
      expect(ctl.child.exitCode).toBeNull();
    } finally {
      cutting = false;
      if (process.env["ROLLOUT_TRACE"]) console.log(rec.timeline());
      if (process.env["ROLLOUT_TRACE_LOGS"])
        (await import("node:fs")).writeFileSync(process.env["ROLLOUT_TRACE_LOGS"], ctl.logs.map((l) => JSON.stringify(l)).join("\n"));
      rec.stop();
      ctl.child.kill("SIGTERM");
      await ctl.exited;
      await proxy.close();
    }
  }, 900_000);
});

describe("apiserver restarts", () => {
  it(`converge within ${String(CONVERGE_WITHIN_MS / 1000)} s of the apiserver's return`, async () => {
    const client = plane.client();
    const ns = await controllerNamespace(client, "chaos-restart");
    const names = Array.from({ length: 20 }, (_, i) => `app-${String(i).padStart(2, "0")}`);
    const labelled = (edit: number) => ({ template: { metadata: { labels: { edit: String(edit) } } } });
    const args = processArgs(ns, ...(process.env["CHAOS_DEBUG"] ? ["--debug"] : []));
    const ctl = spawnController(args, "controller", plane.cp().kubeconfigPath);
    plane.procs.push(ctl);
    const view = await View.start(client, ns);
    const edited = (edit: string) => (): boolean => names.every((n) => (view.apps.get(n)?.metadata?.labels?.["edit"] ?? "") === edit);
    try {
      await client.create(resources.ApplicationSets, listAppSet("restarts", ns, names));
      expect(await view.within(60_000, edited(""))).toBeDefined();
      const figures: number[] = [];
      for (let round = 1; round <= 2; round++) {
        await plane.cp().stopApiServer();
        await sleep(10_000);
        await plane.cp().startApiServer();
        const back = performance.now();
        const patched = await client.patch(
          resources.ApplicationSets,
          { namespace: ns, name: "restarts" },
          { type: "merge", body: { spec: labelled(round) } },
        );
        if (process.env["CHAOS_DEBUG"])
          console.log(
            `round ${String(round)}: patched at resourceVersion ${String(patched.metadata?.resourceVersion)} at ${new Date().toISOString()}`,
          );
        const ok = (await view.within(CONVERGE_WITHIN_MS, edited(String(round)))) !== undefined;
        figures.push(performance.now() - back);
        if (!ok) {
          const live = [...(await applications(client, ns)).values()].map((a) => a.metadata.labels?.["edit"] ?? "");
          const set = await readAppSet(client, ns, "restarts");
          const asked = JSON.stringify(set.spec.template.metadata.labels ?? {});
          const logs = ctl.logs.slice(process.env["CHAOS_DEBUG"] ? -80 : -15).map((l) => JSON.stringify(l));
          throw new Error(
            `round ${String(round)}: not converged ${String(CONVERGE_WITHIN_MS)} ms after the return; ` +
              `the ApplicationSet asks for labels ${asked} (resourceVersion ${set.metadata.resourceVersion ?? ""}), the apiserver has edit labels [${live.join(",")}], the test's watch saw [${names.map((n) => view.apps.get(n)?.metadata?.labels?.["edit"] ?? "-").join(",")}]\n${logs.join("\n")}`,
          );
        }
      }
      console.log(
        `chaos restarts: 2 apiserver restarts of 10 s, converged ${figures.map((f) => `${(f / 1000).toFixed(1)} s`).join(" and ")} after the return`,
      );
      expect(ctl.child.exitCode).toBeNull();
    } finally {
      view.stop();
      ctl.child.kill("SIGTERM");
      await ctl.exited;
    }
  }, 600_000);
});
