/**
 * Apiserver outages during a RollingSync rollout with the sync engine
 * (docs/controller.md#when-the-apiserver-cannot-be-reached): 20 Applications in three steps, rolled
 * out once without faults, then once with the apiserver stopped for 25 s and once for 60 s, each time
 * as soon as the first step's syncs are under way. After each return: the first Application written
 * within 2 s (as the test's own watch sees it), the rollout complete within the fault-free time plus
 * 5 s (the outage not counted), no storm (the controller's writes in any one second after the return
 * within its client's rate limit, from its own `rest_client_requests_total`), and the invariants of
 * the kill suite over the whole run.
 */
import { describe, expect, it } from "vitest";
import { resources, type KubeObject } from "../../src/kube/index.js";
import { controllerNamespace, eventually } from "../e2e/support/controller.js";
import {
  appName,
  clusters,
  ENVS,
  guestbookAppSet,
  guestbookRepo,
  refreshAll,
  rolloutController,
  settledAt,
  type GuestbookRepo,
  type Sizes,
} from "../e2e/support/guestbook-rollout.js";
import { RolloutRecorder } from "../e2e/support/rollout-recorder.js";
import { rolloutViolations } from "./support/invariants.js";
import { chaosPlane, sleep } from "./support/plane.js";
import { WriteRate } from "./support/write-rate.js";

const plane = chaosPlane();
const SIZES: Sizes = { "env-dev": 5, "env-qa": 5, "env-prod": 10 };
/** How soon after the apiserver's return an Application must change. */
const PROGRESS_WITHIN_MS = 2_000;
/** How much longer than without faults a rollout may take, the outage not counted. */
const SLACK_MS = 5_000;
const OUTAGES_MS = [25_000, 60_000];
/** The most requests the client's token bucket lets through in one second at the defaults (QPS 50, burst 100). */
const CLIENT_LIMIT_PER_SECOND = 150;

/** The guestbook in three steps (dev, qa, prod), each synced all at once. */
function threeSteps(ns: string, repo: GuestbookRepo): KubeObject {
  const set = guestbookAppSet(ns, repo, SIZES) as KubeObject & { spec: { strategy: { rollingSync: { steps: unknown[] } } } };
  set.spec.strategy.rollingSync.steps = ENVS.map((env) => ({ matchExpressions: [{ key: "envLabel", operator: "In", values: [env] }] }));
  return set;
}

/** What one rollout measured (ms). */
interface Rollout {
  readonly revision: string;
  readonly outageMs: number;
  /** From the refresh to every Application settled, the outage not counted. */
  readonly workMs: number;
  /**
   * From the apiserver's return (its /readyz passing again) to the first Application written after
   * the outage, as the test's watch saw it; negative when the controller wrote before /readyz passed.
   */
  readonly firstWriteMs?: number;
  /** The controller's most writes in one second, and its writes in all, from the return to the end of the rollout. */
  readonly writes?: { peakPerSecond: number; writes: number };
}

describe("apiserver outages during a RollingSync rollout with the sync engine", () => {
  it(`make progress within ${String(PROGRESS_WITHIN_MS / 1000)} s of the return and finish within ${String(SLACK_MS / 1000)} s of a rollout without faults`, async () => {
    const client = plane.client();
    const ns = await controllerNamespace(client, "chaos-outage");
    const repo = guestbookRepo(plane.temp, SIZES);
    const rec = await RolloutRecorder.start(client, ns, { reconnect: true });
    const names = clusters(SIZES).map((c) => appName(c.cluster));
    const ctl = rolloutController(ns, plane.cp().kubeconfigPath);
    plane.procs.push(ctl);
    const metrics = await eventually(
      "the controller's metrics server",
      () => Promise.resolve(ctl.logs.find((l) => l["msg"] === "serving" && l["server"] === "metrics")),
      60_000,
    );
    const metricsPort = metrics["port"];
    const metricsUrl = `http://127.0.0.1:${String(metricsPort)}/metrics`;
    const rolledOut = (revision: string) => (): true | undefined =>
      names.every((n) => settledAt(rec.current.get(n), revision)) &&
      rec.currentSets.get("guestbook")?.progressing?.startsWith("False") === true
        ? true
        : undefined;
    const rollout = async (version: string, outageMs: number): Promise<Rollout> => {
      const revision = repo.push(version);
      const started = rec.now();
      await refreshAll(client, ns, names);
      if (outageMs === 0) {
        await rec.waitFor(`the rollout of ${version}`, rolledOut(revision), 240_000);
        return { revision, outageMs, workMs: rec.now() - started };
      }
      await rec.waitFor(
        `the first step's syncs of ${version} under way`,
        () => (rec.env("env-dev").some((a) => a.operation?.revision === revision) ? true : undefined),
        120_000,
      );
      // What was written before the outage, which the recorder may only see after it, is not progress after it.
      const stoppedAt = Number((await client.list(resources.Applications, { namespace: ns, limit: 1 })).resourceVersion);
      const rate = new WriteRate(metricsUrl, () => rec.now());
      await plane.cp().stopApiServer();
      const down = rec.now();
      await sleep(outageMs);
      await plane.cp().startApiServer();
      const back = rec.now();
      const first = await rec.waitFor(
        `an Application written after the return (${version})`,
        // Seen after the stop and newer than the list before it: a change the watch delivered late, or one
        // that came before the list's resourceVersion caught up, is not progress after the return.
        () => rec.apps.find((a) => a.t >= down && Number(a.resourceVersion) > stoppedAt),
        240_000,
      );
      await rec.waitFor(`the rollout of ${version}`, rolledOut(revision), 240_000);
      const writes = await rate.stop(back);
      return { revision, outageMs, workMs: rec.now() - started - (back - down), firstWriteMs: first.t - back, writes };
    };
    try {
      await client.create(resources.ApplicationSets, threeSteps(ns, repo));
      await rec.waitFor("the first rollout", rolledOut(repo.first), 240_000);
      const runs: Rollout[] = [await rollout("2", 0)];
      for (const [i, ms] of OUTAGES_MS.entries()) runs.push(await rollout(String(i + 3), ms));
      const [clean, ...faulty] = runs;
      const seconds = (ms: number | undefined): string => `${((ms ?? Number.NaN) / 1000).toFixed(1)} s`;
      console.log(
        `chaos outage: without faults ${seconds(clean!.workMs)}; ` +
          faulty
            .map(
              (r) =>
                `outage of ${seconds(r.outageMs)}: first Application written ${seconds(r.firstWriteMs)} after /readyz passed ` +
                `(negative: before), rollout ${seconds(r.workMs)} without the outage, ` +
                `${String(r.writes?.writes)} writes after the return, at most ${String(r.writes?.peakPerSecond)} in one second`,
            )
            .join("; "),
      );
      for (const r of faulty) {
        expect(r.firstWriteMs).toBeLessThanOrEqual(PROGRESS_WITHIN_MS);
        expect(r.workMs).toBeLessThanOrEqual(clean!.workMs + SLACK_MS);
        expect(r.writes?.writes).toBeGreaterThan(0);
        expect(r.writes?.peakPerSecond).toBeLessThanOrEqual(CLIENT_LIMIT_PER_SECOND);
      }
      expect(rolloutViolations(rec, { maxProdUpdating: SIZES["env-prod"] })).toEqual([]);
      expect(ctl.child.exitCode).toBeNull();
    } finally {
      if (process.env["ROLLOUT_TRACE"]) console.log(rec.timeline());
      rec.stop();
      ctl.child.kill("SIGTERM");
      await ctl.exited;
    }
  }, 1_200_000);
});
