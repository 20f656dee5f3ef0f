import { describe, expect, it } from "vitest";
import type { Application, ApplicationSet, ApplicationSetApplicationStatus, RollingSyncStep } from "../api/index.js";
import { planAppSet } from "./plan.js";
import { changedApplicationStatus } from "./plan-rollout.js";
import type { Plan } from "./plan-types.js";
import type { AppSetSnapshot, PlanSettings } from "./snapshot.js";
import { appSet, appSpec, generated, live, rendered, settings, snapshot } from "../../test/support/controller-builders.js";

const NOW = Date.UTC(2026, 0, 2, 3, 4, 5);
const NOW_TEXT = "2026-01-02T03:04:05Z";
const EARLIER = "2026-01-02T03:00:00Z";
const FINALIZER = "resources-finalizer.argocd.argoproj.io";

const envStep = (env: string, maxUpdate?: number | string): RollingSyncStep => ({
  matchExpressions: [{ key: "envLabel", operator: "In", values: [`env-${env}`] }],
  ...(maxUpdate !== undefined ? { maxUpdate } : {}),
});
/** The seed's example: dev all at once, qa by hand (maxUpdate 0), prod 10% at a time. */
const SEED_STEPS = [envStep("dev"), envStep("qa", 0), envStep("prod", "10%")];
const ENVS = ["dev", "qa", "prod"];

function rolling(
  o: {
    steps?: RollingSyncStep[];
    status?: ApplicationSetApplicationStatus[];
    metadata?: Partial<ApplicationSet["metadata"]>;
    reverse?: boolean;
  } = {},
): ApplicationSet {
  return appSet("guestbook", {
    spec: {
      strategy: { type: "RollingSync", rollingSync: { steps: o.steps ?? SEED_STEPS }, ...(o.reverse ? { deletionOrder: "Reverse" } : {}) },
    },
    ...(o.metadata ? { metadata: o.metadata } : {}),
    ...(o.status ? { status: { applicationStatus: o.status } } : {}),
  });
}

const appName = (env: string): string => `engineering-${env}-guestbook`;
const templateSpec = { syncPolicy: { automated: { prune: true } } };
const writtenSpec = { syncPolicy: { automated: { prune: true, enabled: false } } };
/** The rendered Applications, sorted by name as the generation gives them. */
const renderedApps = ["dev", "prod", "qa"].map((env) =>
  rendered(appName(env), { metadata: { labels: { envLabel: `env-${env}` } }, spec: templateSpec }),
);

/** A live Application of the example, reconciled at `EARLIER` on revision r1, OutOfSync and Healthy. */
function liveApp(owner: ApplicationSet, env: string, metadata: Partial<Application["metadata"]> = {}): Application {
  const s = appSpec(writtenSpec);
  return live(appName(env), owner, {
    spec: writtenSpec,
    metadata: { labels: { envLabel: `env-${env}` }, ...metadata },
    status: {
      sync: { status: "OutOfSync", revision: "r1", comparedTo: { source: s["source"], destination: s["destination"] } as never },
      health: { status: "Healthy" },
      reconciledAt: EARLIER,
    },
  });
}

const entry = (env: string, status: string, step: string): ApplicationSetApplicationStatus => ({
  application: appName(env),
  status,
  step,
  message: "",
  targetRevisions: ["r1"],
  lastTransitionTime: EARLIER,
});

/** The comparable gist of a plan for progressive syncs. */
function gist(plan: Plan) {
  const specOf = (w: Plan["writes"][number]) => w.desired.spec as { syncPolicy?: { automated?: { enabled?: boolean } } };
  return {
    creates: plan.writes.filter((w) => w.change.kind === "create").map((w) => w.name),
    updates: plan.writes.filter((w) => w.change.kind === "update").map((w) => w.name),
    autosync: plan.writes.map((w) => [w.name, specOf(w).syncPolicy?.automated?.enabled]),
    operations: plan.writes.flatMap((w) =>
      w.desired.operation ? [[w.name, (w.desired.operation["sync"] as { revision?: string }).revision]] : [],
    ),
    applicationStatus: plan.applicationStatus?.map((e) => [e.application, e.status, e.step]),
    statusEntries: plan.status?.applicationStatus?.map((e) => e.application),
    conditions: plan.status?.conditions?.map((c) => [c.type, c.status, c.reason, c.message]),
    logs: plan.logs?.filter((l) => !l.startsWith("Application ")),
    warnings: plan.warnings.length,
    requeueAfterMs: plan.requeueAfterMs,
  };
}

interface Row {
  name: string;
  snap: AppSetSnapshot;
  cfg?: Partial<PlanSettings>;
  want: Partial<ReturnType<typeof gist>>;
}

const ON: Partial<PlanSettings> = { progressiveSyncs: true };
const seedSet = rolling();
const liveSeed = ENVS.map((env) => liveApp(seedSet, env));
const afterFirstPass = rolling({ status: [entry("dev", "Pending", "1"), entry("prod", "Waiting", "3"), entry("qa", "Waiting", "2")] });

const rows: Row[] = [
  {
    name: "with the flag off, a stale applicationStatus is cleared and the Applications are written as generated",
    snap: snapshot({ appSet: afterFirstPass, generation: generated(renderedApps) }),
    want: {
      creates: renderedApps.map((a) => a.metadata.name ?? ""),
      autosync: renderedApps.map((a) => [a.metadata.name, undefined]),
      applicationStatus: [],
      statusEntries: undefined,
      operations: [],
      logs: ["Progressive Sync disabled, removing 3 AppStatus entries from ApplicationSet guestbook"],
    },
  },
  {
    name: "RollingSync without steps reports No steps defined for rollout, writes no Application and requeues after 3 minutes",
    snap: snapshot({ appSet: rolling({ steps: [] }), owned: [liveApp(seedSet, "gone")], generation: generated(renderedApps) }),
    cfg: ON,
    want: {
      creates: [],
      updates: [],
      applicationStatus: undefined,
      conditions: [
        ["ErrorOccurred", "True", "ApplicationSetRolloutError", "No steps defined for rollout"],
        ["ParametersGenerated", "True", "ParametersGenerated", "All parameters have been generated successfully"],
        ["ResourcesUpToDate", "False", "ErrorOccurred", "No steps defined for rollout"],
      ],
      requeueAfterMs: 180_000,
    },
  },
  {
    name: "the seed's example creates every Application with autosync off and warns once for each",
    snap: snapshot({ appSet: seedSet, generation: generated(renderedApps) }),
    cfg: ON,
    want: {
      creates: renderedApps.map((a) => a.metadata.name ?? ""),
      autosync: renderedApps.map((a) => [a.metadata.name, false]),
      operations: [],
      applicationStatus: undefined,
      warnings: 3,
    },
  },
  {
    name: "the seed's example, once the Applications exist, moves dev to Pending with its pinned sync in the same pass and leaves qa and prod Waiting",
    snap: snapshot({ appSet: seedSet, owned: liveSeed, generation: generated(renderedApps) }),
    cfg: ON,
    want: {
      updates: [appName("dev")],
      operations: [[appName("dev"), "r1"]],
      applicationStatus: [
        [appName("dev"), "Pending", "1"],
        [appName("prod"), "Waiting", "3"],
        [appName("qa"), "Waiting", "2"],
      ],
      statusEntries: [appName("dev"), appName("prod"), appName("qa")],
      conditions: [
        ["ErrorOccurred", "False", "ApplicationSetUpToDate", "All applications have been generated successfully"],
        ["InvalidRolloutConfig", "False", "ApplicationSetValidRolloutConfig", "Rolling Sync Configured correctly"],
        ["ParametersGenerated", "True", "ParametersGenerated", "All parameters have been generated successfully"],
        ["ResourcesUpToDate", "True", "ApplicationSetUpToDate", "All applications have been generated successfully"],
        ["RolloutProgressing", "True", "ApplicationSetModified", "ApplicationSet is performing rollout of step 1"],
      ],
    },
  },
  {
    name: "the seed's example, on the next pass, attaches to dev a sync pinned to its revision and nothing to qa or prod",
    snap: snapshot({ appSet: afterFirstPass, owned: ENVS.map((env) => liveApp(afterFirstPass, env)), generation: generated(renderedApps) }),
    cfg: ON,
    want: {
      updates: [appName("dev")],
      operations: [[appName("dev"), "r1"]],
      logs: [`triggering sync for application: ${appName("dev")}, step 1, revisions [r1]`],
    },
  },
];

describe("planAppSet with progressive syncs", () => {
  it.each(rows)("$name", ({ snap, cfg, want }) => {
    const g = gist(planAppSet(snap, NOW, settings(cfg)));
    expect(Object.fromEntries(Object.keys(want).map((k) => [k, g[k as keyof typeof g]]))).toEqual(want);
  });

  it("asks for a refresh of an Application that lags after the grace period, through the preserved refresh annotation", () => {
    const newCommit = {
      ...entry("dev", "Waiting", "1"),
      message: "Application has pending changes, setting status to Waiting",
      targetRevisions: ["r2"],
    };
    const changed = rolling({ status: [newCommit, entry("prod", "Waiting", "3"), entry("qa", "Waiting", "2")] });
    const dev = liveApp(changed, "dev");
    const devAtR2 = { ...dev, status: { ...dev.status, sync: { ...dev.status?.sync, status: "OutOfSync", revision: "r2" } } };
    const stale = { ...liveApp(changed, "qa"), status: { ...liveApp(changed, "qa").status, reconciledAt: "2026-01-02T02:00:00Z" } };
    const prod = liveApp(changed, "prod");
    // Reconciled a second after dev's change (in its very second it might have been before it).
    const prodAfter = { ...prod, status: { ...prod.status, reconciledAt: "2026-01-02T03:00:01Z" } };
    const owned = [devAtR2, prodAfter, stale];
    const plan = planAppSet(snapshot({ appSet: changed, owned, generation: generated(renderedApps) }), NOW, settings(ON));
    expect(plan.writes.map((w) => [w.name, w.desired.annotations["argocd.argoproj.io/refresh"]])).toEqual([[appName("qa"), "normal"]]);
  });

  it.each([
    {
      name: "a template change resets a Healthy entry to Waiting",
      ignore: [],
      want: ["Waiting", "Application has pending changes (spec differs), setting status to Waiting"],
    },
    {
      name: "a change only in a field ignoreApplicationDifferences names leaves a Healthy entry Healthy",
      ignore: [{ jsonPointers: ["/spec/source/targetRevision"] }],
      want: ["Healthy", ""],
    },
  ])("$name", ({ ignore, want }) => {
    const base = rolling({ steps: [envStep("dev")], status: [entry("dev", "Healthy", "1")] });
    const set = { ...base, spec: { ...base.spec, ignoreApplicationDifferences: ignore } };
    const dev = liveApp(set, "dev");
    const synced = { ...dev, status: { ...dev.status, sync: { ...dev.status?.sync, status: "Synced" } } } as Application;
    const source = { repoURL: "https://github.com/argoproj/argocd-example-apps", path: "guestbook", targetRevision: "v2" };
    const changed = rendered(appName("dev"), { metadata: { labels: { envLabel: "env-dev" } }, spec: { ...templateSpec, source } });
    const plan = planAppSet(snapshot({ appSet: set, owned: [synced], generation: generated([changed]) }), NOW, settings(ON));
    const e = (plan.applicationStatus ?? set.status?.applicationStatus)?.[0];
    expect([e?.status, e?.message]).toEqual(want);
  });

  it("adds the ApplicationSet finalizer for Reverse deletion only with the flag on", () => {
    const reverse = rolling({ reverse: true });
    const snap = snapshot({ appSet: reverse, generation: generated([]) });
    expect(planAppSet(snap, NOW, settings(ON)).appSetPatch).toEqual({ metadata: { finalizers: [FINALIZER], resourceVersion: "10" } });
    expect(planAppSet(snap, NOW, settings()).appSetPatch).toBeUndefined();
  });

  it("stamps the rollout conditions with the planning time", () => {
    const plan = planAppSet(snapshot({ appSet: seedSet, owned: liveSeed, generation: generated(renderedApps) }), NOW, settings(ON));
    expect(plan.status?.conditions?.find((c) => c.type === "RolloutProgressing")?.lastTransitionTime).toBe(NOW_TEXT);
  });
});

describe("planAppSet: Reverse deletion", () => {
  const deleting = (metadata: Partial<ApplicationSet["metadata"]> = {}, policy?: "create-only"): ApplicationSet => {
    const a = rolling({
      steps: [envStep("dev"), envStep("prod")],
      reverse: true,
      metadata: { deletionTimestamp: EARLIER, finalizers: [FINALIZER], ...metadata },
    });
    return policy ? { ...a, spec: { ...a.spec, syncPolicy: { applicationsSync: policy } } } : a;
  };
  const owner = deleting();
  const terminating = (since: string) => liveApp(owner, "prod", { deletionTimestamp: since });

  it.each([
    {
      name: "deletes the last step's Application first, with its UID, and looks again in 10 s",
      owned: [liveApp(owner, "dev"), liveApp(owner, "prod")],
      want: { deletes: [`${appName("prod")}@uid-app-${appName("prod")}`], check: undefined, requeueAfterMs: 10_000, patch: false },
    },
    {
      name: "waits while the Application it deleted is terminating, touching no other",
      owned: [liveApp(owner, "dev"), terminating("2026-01-02T03:03:00Z")],
      want: { deletes: [], check: undefined, requeueAfterMs: 10_000, patch: false },
    },
    {
      name: "checks the API server for an Application the cache has shown terminating for over two minutes",
      owned: [liveApp(owner, "dev"), terminating(EARLIER)],
      want: { deletes: [], check: { name: appName("prod"), uid: `uid-app-${appName("prod")}` }, requeueAfterMs: 10_000, patch: false },
    },
    {
      name: "moves to the first step once the last step is gone",
      owned: [liveApp(owner, "dev")],
      want: { deletes: [`${appName("dev")}@uid-app-${appName("dev")}`], check: undefined, requeueAfterMs: 10_000, patch: false },
    },
    {
      name: "removes the finalizer once every Application is gone",
      owned: [],
      want: { deletes: [], check: undefined, requeueAfterMs: 0, patch: true },
    },
  ])("$name", ({ owned, want }) => {
    const plan = planAppSet(snapshot({ appSet: owner, owned, generation: undefined }), NOW, settings());
    expect({
      deletes: plan.deletes.map((d) => `${d.name}@${d.uid ?? ""}`),
      check: plan.deletionCheck,
      requeueAfterMs: plan.requeueAfterMs,
      patch: plan.appSetPatch !== undefined,
    }).toEqual(want);
  });

  it("under create-only strips the owner references and deletes nothing", () => {
    const a = deleting({}, "create-only");
    const plan = planAppSet(
      snapshot({ appSet: a, owned: [liveApp(a, "dev"), liveApp(a, "prod")], generation: undefined }),
      NOW,
      settings(),
    );
    expect([plan.deletes.length, plan.ownerStrips.map((s) => s.name), plan.appSetPatch]).toEqual([
      0,
      [appName("dev"), appName("prod")],
      // the last finalizer goes as null, as a merge patch computed from Go's JSON sends it
      { metadata: { finalizers: null, resourceVersion: "10" } },
    ]);
  });
});

describe("changedApplicationStatus", () => {
  const entry = (o: Partial<ApplicationSetApplicationStatus> = {}): ApplicationSetApplicationStatus => ({
    application: "a",
    status: "Waiting",
    step: "1",
    message: "m",
    targetRevisions: ["r1"],
    lastTransitionTime: EARLIER,
    ...o,
  });
  const decision = (entries: ApplicationSetApplicationStatus[]) =>
    ({ applicationStatus: entries }) as unknown as Parameters<typeof changedApplicationStatus>[1];
  it.each([
    // name; the persisted entries; the decision's entries; whether a write is due
    {
      name: "a fresh lastTransitionTime alone writes nothing",
      now: [entry()],
      next: [entry({ lastTransitionTime: NOW_TEXT })],
      write: false,
    },
    { name: "new targetRevisions alone write nothing", now: [entry()], next: [entry({ targetRevisions: ["r2"] })], write: false },
    { name: "a status change writes", now: [entry()], next: [entry({ status: "Pending" })], write: true },
    { name: "a step change writes", now: [entry()], next: [entry({ step: "2" })], write: true },
    { name: "a message change writes", now: [entry()], next: [entry({ message: "other" })], write: true },
    { name: "a new entry writes", now: [entry()], next: [entry(), entry({ application: "b" })], write: true },
    { name: "a dropped entry writes", now: [entry(), entry({ application: "b" })], next: [entry()], write: true },
  ])("$name", ({ now, next, write }) => {
    const got = changedApplicationStatus({ applicationStatus: now }, decision(next));
    expect(got).toEqual(write ? next : undefined);
  });
});
