import { describe, expect, it } from "vitest";
import type { Application, ApplicationSet, ApplicationSetApplicationStatus, RollingSyncStep } from "../api/index.js";
import { FakeClock } from "../clock/index.js";
import { resources } from "../kube/index.js";
import { silentLogger } from "../log/logger.js";
import { AppSetMetrics, Registry } from "../metrics/index.js";
import { FakeKubeClient } from "../../test/support/fake-kube-client.js";
import { appSet, appSpec, generated, live, rendered, settings } from "../../test/support/controller-builders.js";
import { PlanExecutor } from "./apply.js";
import { MemoryEventSink } from "./events.js";
import { AppSetReconciler, type ControllerCaches } from "./reconciler.js";
import type { RolloutMetrics } from "./rollout-metrics.js";

/** The planning time: four minutes after the entries' last transition. */
const NOW = Date.UTC(2026, 0, 2, 3, 4, 5);
const CHANGED_AT = "2026-01-02T03:00:00Z";
const PENDING_CHANGES = "Application has pending changes, setting status to Waiting";

const step = (env: string): RollingSyncStep => ({ matchExpressions: [{ key: "env", operator: "In", values: [env] }] });
const ENVS = ["dev", "prod"];
/** What RollingSync writes: the template's automated sync turned off. */
const SPEC = { syncPolicy: { automated: { prune: true, enabled: false } } };

function rolling(status?: ApplicationSetApplicationStatus[]): ApplicationSet {
  return appSet("guestbook", {
    spec: { strategy: { type: "RollingSync", rollingSync: { steps: ENVS.map(step) } } },
    ...(status ? { status: { applicationStatus: status } } : {}),
  });
}

const entry = (env: string, status: string, over: Partial<ApplicationSetApplicationStatus> = {}): ApplicationSetApplicationStatus => ({
  application: env,
  status,
  step: String(ENVS.indexOf(env) + 1),
  message: "",
  targetRevisions: ["r1"],
  lastTransitionTime: CHANGED_AT,
  ...over,
});

/** A live Application of `env` (on revision r1 unless told), Healthy, compared with its spec at `reconciledAt`. */
function liveApp(owner: ApplicationSet, env: string, o: { sync?: string; reconciledAt?: string; revision?: string } = {}): Application {
  const s = appSpec(SPEC);
  return live(env, owner, {
    spec: SPEC,
    metadata: { labels: { env } },
    status: {
      sync: {
        status: o.sync ?? "OutOfSync",
        revision: o.revision ?? "r1",
        comparedTo: { source: s["source"], destination: s["destination"] } as never,
      },
      health: { status: "Healthy" },
      reconciledAt: o.reconciledAt ?? CHANGED_AT,
    },
  });
}

interface World {
  /** The ApplicationSets in the cache (one reconcile reads them). */
  sets: ApplicationSet[];
  apps: Application[];
}

/** A reconciler over `world` reporting to a real registry; the status write takes 120 ms of the fake clock. */
function setup(world: World) {
  const client = new FakeKubeClient();
  client.seed(resources.ApplicationSets, ...world.sets);
  client.seed(resources.Applications, ...world.apps);
  const clock = new FakeClock(NOW);
  client.interceptors.patchStatus = (_action, next) => {
    clock.advance(120);
    return next();
  };
  const registry = new Registry();
  const metrics: RolloutMetrics = new AppSetMetrics({ registry, list: () => [], namespaceAllowed: () => true }).progressiveSync;
  const caches: ControllerCaches = {
    appSet: (ns, name) => world.sets.find((s) => s.metadata.namespace === ns && s.metadata.name === name),
    ownedApps: () => world.apps,
    app: (_ns, name) => world.apps.find((a) => a.metadata.name === name),
    projectNames: () => new Set(["default"]),
    clusters: () => [],
  };
  const logger = silentLogger();
  const executor = new PlanExecutor({
    client,
    events: new MemoryEventSink(),
    clock,
    logger,
    concurrency: 2,
    dryRun: false,
    rolloutMetrics: metrics,
  });
  const generate = () => Promise.resolve(generated(ENVS.map((env) => rendered(env, { metadata: { labels: { env } }, spec: SPEC }))));
  const reconciler = new AppSetReconciler({
    caches,
    generate,
    executor,
    settings: settings({ progressiveSyncs: true }),
    clock,
    rolloutMetrics: metrics,
  });
  const ctx = { reconcileId: "r1", logger, signal: new AbortController().signal, stopping: new AbortController().signal };
  return { registry, reconcile: () => reconciler.reconcile("argocd/guestbook", ctx) };
}

/** The samples of the four progressive-sync families (no HELP/TYPE lines, no buckets), in family order. */
async function samples(registry: Registry): Promise<string[]> {
  const families = [
    "argocd_appset_progressive_sync_app_status",
    "argocd_appset_progressive_sync_syncs_triggered_total",
    "argocd_appset_progressive_sync_detection_to_trigger_seconds",
    "argocd_appset_app_refresh_total",
  ];
  const text = await Promise.all(families.map((f) => registry.getSingleMetricAsString(f)));
  return text
    .join("\n")
    .split("\n")
    .filter((l) => l !== "" && !l.startsWith("#") && !l.includes("_bucket{") && !l.includes("_sum{"));
}

const LABELS = 'namespace="argocd",name="guestbook"';
const appStatus = (stepLabel: string, status: string, n: number): string =>
  `argocd_appset_progressive_sync_app_status{${LABELS},step="${stepLabel}",progressiveStatus="${status}"} ${String(n)}`;
const syncs = (stepLabel: string, n: number): string =>
  `argocd_appset_progressive_sync_syncs_triggered_total{${LABELS},step="${stepLabel}"} ${String(n)}`;
const detections = (n: number): string => `argocd_appset_progressive_sync_detection_to_trigger_seconds_count{${LABELS}} ${String(n)}`;
const refreshes = (n: number): string => `argocd_appset_app_refresh_total{${LABELS}} ${String(n)}`;

const first = rolling();
const healthyNext = rolling([entry("dev", "Progressing"), entry("prod", "Waiting")]);
const newCommit = rolling([entry("dev", "Waiting", { message: PENDING_CHANGES, targetRevisions: ["r2"] }), entry("prod", "Waiting")]);

describe("progressive-sync metrics of a reconcile", () => {
  it.each([
    {
      name: "a RollingSync step triggering its sync counts the Applications per step and the sync of step 1",
      world: { sets: [first], apps: ENVS.map((env) => liveApp(first, env)) },
      want: [appStatus("1", "Pending", 1), appStatus("2", "Waiting", 1), syncs("1", 1), detections(1)],
    },
    {
      name: "an Application going Healthy moves step 1's count to Healthy and lets step 2 sync",
      world: {
        sets: [healthyNext],
        apps: [liveApp(healthyNext, "dev", { sync: "Synced", reconciledAt: "2026-01-02T03:04:00Z" }), liveApp(healthyNext, "prod")],
      },
      want: [appStatus("1", "Healthy", 1), appStatus("2", "Pending", 1), syncs("2", 1), detections(1)],
    },
    {
      name: "an Application that has not caught up with a new commit is refreshed, and nothing may sync yet",
      world: {
        sets: [newCommit],
        apps: [liveApp(newCommit, "dev", { revision: "r2" }), liveApp(newCommit, "prod", { reconciledAt: "2026-01-02T02:00:00Z" })],
      },
      want: [appStatus("1", "Waiting", 1), appStatus("2", "Waiting", 1), refreshes(1)],
    },
    {
      name: "an ApplicationSet that is gone reports nothing",
      world: { sets: [], apps: [] },
      want: [],
    },
  ])("$name", async ({ world, want }) => {
    const { registry, reconcile } = setup(world);
    await reconcile();
    expect(await samples(registry)).toEqual(want);
  });

  it("times detection to trigger with the injected clock: the applicationStatus write in between took 120 ms", async () => {
    const { registry, reconcile } = setup({ sets: [first], apps: ENVS.map((env) => liveApp(first, env)) });
    await reconcile();
    const text = await registry.getSingleMetricAsString("argocd_appset_progressive_sync_detection_to_trigger_seconds");
    const buckets = text.split("\n").filter((l) => l.includes("_bucket{"));
    expect(buckets.map((l) => /le="([^"]+)".* (\d+)$/.exec(l)?.slice(1).join(" "))).toEqual([
      "0.05 0",
      "0.1 0",
      "0.15 1",
      "0.5 1",
      "1 1",
      "5 1",
      "+Inf 1",
    ]);
    expect(text).toContain(`argocd_appset_progressive_sync_detection_to_trigger_seconds_sum{${LABELS}} 0.12`);
  });

  it("drops an ApplicationSet's per-step counts once it is gone, keeping its counters", async () => {
    const world: World = { sets: [first], apps: ENVS.map((env) => liveApp(first, env)) };
    const { registry, reconcile } = setup(world);
    await reconcile();
    world.sets = [];
    await reconcile();
    expect(await samples(registry)).toEqual([syncs("1", 1), detections(1)]);
  });
});
