import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseApplication, parseApplicationSet, type Application, type ApplicationSet } from "../api/index.js";
import { FakeClock } from "../clock/index.js";
import { KubeApiError, KubeReason, resources } from "../kube/index.js";
import { FakeKubeClient, type Action } from "../../test/support/fake-kube-client.js";
import { silentLogger } from "../log/logger.js";
import type { AppWriteThrough } from "./app-writes.js";
import { PlanExecutor } from "./apply.js";
import { StatusConflictError } from "./appset-writes.js";
import { appChange, desiredFrom, newApplication } from "./desired.js";
import { MemoryEventSink } from "./events.js";
import { planAppSet } from "./plan.js";
import { EMPTY_PLAN, isNoop, type AppWrite, type Plan } from "./plan-types.js";
import type { Generation } from "./snapshot.js";
import { appSet, generated, live, rendered, settings, snapshot } from "../../test/support/controller-builders.js";

const NOW = Date.UTC(2026, 0, 1);

function world(set: ApplicationSet, apps: Application[] = []) {
  const client = new FakeKubeClient();
  client.seed(resources.ApplicationSets, set);
  client.seed(resources.Applications, ...apps);
  const events = new MemoryEventSink();
  const clock = new FakeClock(NOW);
  const executor = (dryRun = false, concurrency = 4, cache?: AppWriteThrough) =>
    new PlanExecutor({ client, events, clock, logger: silentLogger(), concurrency, dryRun, ...(cache ? { cache } : {}) });
  return { client, events, executor };
}

/** Reads the fake's state into a snapshot, as the caches would. */
async function observe(client: FakeKubeClient, name: string, generation: Generation) {
  const set = parseApplicationSet(await client.get(resources.ApplicationSets, { namespace: "argocd", name }));
  if (!set.ok) throw set.error;
  const all = (await client.list(resources.Applications, { namespace: "argocd" })).items.map((o) => {
    const r = parseApplication(o);
    if (!r.ok) throw r.error;
    return r.value;
  });
  const owned = all.filter((a) => a.metadata.ownerReferences?.some((r) => r.controller && r.name === name));
  return snapshot({ appSet: set.value, owned, live: new Map(all.map((a) => [a.metadata.name ?? "", a])), generation });
}

function verbs(actions: Action[]): string[] {
  return actions.filter((a) => a.verb !== "get" && a.verb !== "list").map((a) => `${a.verb} ${a.resource}/${a.name ?? ""}`);
}

const conflict = () => new KubeApiError({ status: 409, reason: KubeReason.Conflict, message: "the object has been modified" });

describe("PlanExecutor", () => {
  it("creates missing Applications, writes the status once and records a created event for each", async () => {
    const set = appSet();
    const w = world(set);
    const plan = planAppSet(await observe(w.client, "guestbook", generated([rendered("a"), rendered("b")])), NOW, settings());
    await w.executor().apply(set, plan);
    expect(verbs(w.client.actions).sort()).toEqual([
      "create applications/a",
      "create applications/b",
      "patchStatus applicationsets/guestbook",
    ]);
    expect(w.events.events.map((e) => `${e.reason}: ${e.message}`).sort()).toEqual([
      'created: created Application "a"',
      'created: created Application "b"',
    ]);
  });

  it("re-reads an Application after a conflict and patches it against the fresh version", async () => {
    const set = appSet();
    const w = world(set, [live("a", set, { spec: { project: "old" } })]);
    const plan = planAppSet(await observe(w.client, "guestbook", generated([rendered("a")])), NOW, settings());
    let failed = false;
    w.client.interceptors.patch = (action, next) => {
      if (!failed && action.resource === "applications") {
        failed = true;
        return Promise.reject(conflict());
      }
      return next();
    };
    w.client.clearActions();
    await w.executor().apply(set, plan);
    expect(w.client.actions.filter((a) => a.resource === "applications").map((a) => a.verb)).toEqual(["patch", "get", "patch"]);
    expect((w.client.peek(resources.Applications, { namespace: "argocd", name: "a" }) as Application).spec.project).toBe("default");
  });

  it("treats a create that meets an identical existing Application as done", async () => {
    const set = appSet();
    const w = world(set, [live("a", set)]);
    const stale = snapshot({ appSet: set, generation: generated([rendered("a")]) });
    w.client.clearActions();
    await w.executor().apply(set, planAppSet(stale, NOW, settings()));
    expect(verbs(w.client.actions)).toEqual(["create applications/a", "patchStatus applicationsets/guestbook"]);
  });

  it("writes the other Applications when one fails, then sets the smallest failing name's error and throws it", async () => {
    const set = appSet();
    const w = world(set);
    w.client.interceptors.create = (action, next) =>
      action.name === "b" || action.name === "c"
        ? Promise.reject(new KubeApiError({ status: 422, reason: KubeReason.Invalid, message: `bad ${action.name ?? ""}` }))
        : next();
    const plan = planAppSet(await observe(w.client, "guestbook", generated(["a", "b", "c"].map((n) => rendered(n)))), NOW, settings());
    await expect(w.executor().apply(set, plan)).rejects.toThrow("bad b");
    expect(w.client.peek(resources.Applications, { namespace: "argocd", name: "a" })).toBeDefined();
    const status = (w.client.peek(resources.ApplicationSets, { namespace: "argocd", name: "guestbook" }) as ApplicationSet).status;
    expect(status?.conditions?.find((c) => c.type === "ErrorOccurred")).toMatchObject({
      status: "True",
      reason: "UpdateApplicationError",
      message: "bad b",
    });
  });

  it.each([1, 3, 20])("writes at most --concurrent-application-updates %i at a time, in name order, and all of them", async (limit) => {
    const set = appSet();
    const w = world(set);
    const names = Array.from({ length: 12 }, (_, i) => `app-${String(i).padStart(2, "0")}`);
    let inFlight = 0;
    let most = 0;
    const started: string[] = [];
    w.client.interceptors.create = async (action, next) => {
      started.push(action.name ?? "");
      most = Math.max(most, ++inFlight);
      // Yield a few turns, so the other workers start their writes before this one ends.
      for (let turn = 0; turn < 5; turn++) await Promise.resolve();
      inFlight--;
      return next();
    };
    const plan = planAppSet(await observe(w.client, "guestbook", generated(names.map((n) => rendered(n)))), NOW, settings());
    await w.executor(false, limit).apply(set, plan);
    expect(most).toBe(Math.min(limit, names.length));
    expect(started).toEqual(names);
    expect((await w.client.list(resources.Applications, { namespace: "argocd" })).items).toHaveLength(names.length);
  });

  it("removes the resources finalizer of a stale Application whose cluster is gone, then deletes it, with both events", async () => {
    const set = appSet();
    const w = world(set, [live("gone", set, { spec: { destination: { server: "https://old.example.com" } } })]);
    const plan = planAppSet(await observe(w.client, "guestbook", generated([])), NOW, settings());
    w.client.clearActions();
    await w.executor().apply(set, plan);
    expect(verbs(w.client.actions)).toEqual([
      "patch applications/gone",
      "delete applications/gone",
      "patchStatus applicationsets/guestbook",
    ]);
    expect(w.events.events.map((e) => e.reason)).toEqual(["Updated", "Deleted"]);
  });

  it("sends every write as a dry run under --dry-run", async () => {
    const set = appSet();
    const w = world(set, [live("gone", set)]);
    const plan = planAppSet(await observe(w.client, "guestbook", generated([rendered("a")])), NOW, settings());
    w.client.clearActions();
    await w.executor(true).apply(set, plan);
    const writes = w.client.actions.filter((a) => a.verb !== "get" && a.verb !== "list");
    expect(writes.length).toBeGreaterThan(0);
    expect(writes.every((a) => (a.options as { dryRun?: boolean } | undefined)?.dryRun === true)).toBe(true);
    expect(w.client.peek(resources.Applications, { namespace: "argocd", name: "gone" })).toBeDefined();
  });

  it("sends nothing for a plan that changes nothing", async () => {
    const set = appSet();
    const w = world(set);
    const first = planAppSet(await observe(w.client, "guestbook", generated([rendered("a")])), NOW, settings());
    await w.executor().apply(set, first);
    const again = planAppSet(await observe(w.client, "guestbook", generated([rendered("a")])), NOW + 1000, settings());
    w.client.clearActions();
    await w.executor().apply(set, again);
    expect(isNoop(again)).toBe(true);
    expect(verbs(w.client.actions)).toEqual([]);
  });
});

describe("plan, apply, plan again", () => {
  const names = fc.uniqueArray(fc.constantFrom("a", "b", "c", "d", "e"), { maxLength: 5 });
  const revision = fc.constantFrom("HEAD", "v1", "v2");
  const policy = fc.constantFrom("sync", "create-only", "create-update", "create-delete" as const);

  it("leaves nothing to do: applying a plan and re-planning gives a plan without writes", async () => {
    await fc.assert(
      fc.asyncProperty(names, names, revision, revision, policy, async (want, have, rev, liveRev, pol) => {
        const set = appSet("guestbook", { spec: { syncPolicy: { applicationsSync: pol } } });
        const source = (r: string) => ({ repoURL: "https://example.com/repo", path: "p", targetRevision: r });
        const w = world(
          set,
          have.map((n) => live(n, set, { spec: { source: source(liveRev) }, metadata: { labels: { stray: "x" } } })),
        );
        const gen = generated(want.map((n) => rendered(n, { spec: { source: source(rev) } })));
        await w.executor().apply(set, planAppSet(await observe(w.client, "guestbook", gen), NOW, settings()));
        const current = await observe(w.client, "guestbook", gen);
        const again = planAppSet(current, NOW + 1000, settings());
        expect(again.writes).toEqual([]);
        expect(again.deletes).toEqual([]);
        expect(again.status).toBeUndefined();
      }),
      { numRuns: 60 },
    );
  });
});

describe("PlanExecutor: progressive syncs", () => {
  const stale = [{ application: "a", status: "Healthy", step: "1", message: "", targetRevisions: ["r1"] }];

  it("clears a stale applicationStatus before writing any Application, and the later status write keeps it cleared", async () => {
    const set = appSet("guestbook", { status: { applicationStatus: stale } });
    const w = world(set);
    const plan = planAppSet(await observe(w.client, "guestbook", generated([rendered("a")])), NOW, settings());
    w.client.clearActions();
    await w.executor().apply(set, plan);
    expect(verbs(w.client.actions)).toEqual([
      "patchStatus applicationsets/guestbook",
      "create applications/a",
      "patchStatus applicationsets/guestbook",
    ]);
    const status = (w.client.peek(resources.ApplicationSets, { namespace: "argocd", name: "guestbook" }) as ApplicationSet).status;
    expect([status?.applicationStatus, status?.conditions?.length]).toEqual([undefined, 3]);
  });

  it("keeps the new applicationStatus when a later Application write fails and sets its error", async () => {
    const steps = [{ matchExpressions: [] }];
    const previous = [...stale, { ...stale[0]!, application: "gone" }];
    const set = appSet("guestbook", {
      spec: { strategy: { type: "RollingSync", rollingSync: { steps } } },
      status: { applicationStatus: previous },
    });
    const w = world(set, [live("a", set)]);
    w.client.interceptors.create = () => Promise.reject(new KubeApiError({ status: 422, reason: KubeReason.Invalid, message: "bad b" }));
    const plan = planAppSet(
      await observe(w.client, "guestbook", generated([rendered("a"), rendered("b")])),
      NOW,
      settings({ progressiveSyncs: true }),
    );
    await expect(w.executor().apply(set, plan)).rejects.toThrow("bad b");
    const status = (w.client.peek(resources.ApplicationSets, { namespace: "argocd", name: "guestbook" }) as ApplicationSet).status;
    expect(status?.applicationStatus?.map((e) => e.application)).toEqual(["a"]);
    expect(status?.conditions?.find((c) => c.type === "ErrorOccurred")?.message).toBe("bad b");
  });

  it.each([
    {
      name: "fails when the API server still has the Application",
      present: true,
      reject: undefined,
      want: "application has not been deleted in over 2 minutes",
    },
    {
      name: "evicts an Application the API server no longer has with a DELETE preconditioned on its UID",
      present: false,
      reject: undefined,
      want: undefined,
    },
    {
      name: "reports an Application recreated under the same name",
      present: false,
      reject: conflict,
      want: "application a was recreated while being confirmed as deleted",
    },
  ])("Reverse deletion check: $name", async ({ present, reject, want }) => {
    const set = appSet();
    const w = world(set, present ? [live("a", set)] : []);
    const deletes: unknown[] = [];
    w.client.interceptors.delete = (action, next) => {
      deletes.push(action.options);
      return reject ? Promise.reject(reject()) : next();
    };
    const run = w.executor().apply(set, { ...EMPTY_PLAN, deletionCheck: { name: "a", uid: "uid-a" }, requeueAfterMs: 10_000 });
    if (want === undefined) await expect(run).resolves.toMatchObject({ metadata: { name: "guestbook" } });
    else await expect(run).rejects.toThrow(want);
    expect(deletes).toEqual(present ? [] : [expect.objectContaining({ preconditions: { uid: "uid-a" } })]);
  });
});

/** A write-through cache that records what the executor told it. */
function recordingCache(): AppWriteThrough & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    written: (o) => calls.push(`written ${o.metadata?.name ?? ""}@${o.metadata?.resourceVersion ?? ""}`),
    gone: (_ns, name) => calls.push(`gone ${name}`),
    deleted: (_ns, name) => calls.push(`deleted ${name}`),
  };
}

const notFound = () => new KubeApiError({ status: 404, reason: KubeReason.NotFound, message: "not found" });

describe("PlanExecutor: read-your-writes", () => {
  type Row = {
    name: string;
    apps: string[];
    plan: (set: ApplicationSet) => Plan;
    fail?: Partial<Record<"patch" | "delete", () => KubeApiError>>;
    dryRun?: boolean;
    calls: string[];
  };
  const update = (set: ApplicationSet): Plan => ({
    ...EMPTY_PLAN,
    writes: [
      {
        name: "a",
        desired: desiredFrom(rendered("a"), set, settings()),
        change: { kind: "update", patch: { spec: { project: "default" } } },
      },
    ],
  });
  it.each<Row>([
    {
      name: "a create stores the created object",
      apps: [],
      plan: (set) => ({
        ...EMPTY_PLAN,
        writes: [
          {
            name: "a",
            desired: desiredFrom(rendered("a"), set, settings()),
            change: { kind: "create", object: newApplication(desiredFrom(rendered("a"), set, settings())) },
          },
        ],
      }),
      calls: ["written a@11"],
    },
    { name: "an update stores the patched object with its new resourceVersion", apps: ["a"], plan: update, calls: ["written a@12"] },
    {
      name: "an update answered NotFound evicts, then the re-created object is stored",
      apps: ["a"],
      plan: update,
      fail: { patch: notFound },
      calls: ["gone a", "written a@12"],
    },
    {
      name: "a delete that went through asks for eviction (kept when terminating)",
      apps: ["a"],
      plan: () => ({ ...EMPTY_PLAN, deletes: [{ name: "a", delete: true }] }),
      calls: ["deleted a"],
    },
    {
      name: "a delete answered NotFound counts as done and evicts",
      apps: ["a"],
      plan: () => ({ ...EMPTY_PLAN, deletes: [{ name: "a", delete: true }] }),
      fail: { delete: notFound },
      calls: ["gone a"],
    },
    {
      name: "the finalizer patch before a delete is stored, then the delete asks for eviction",
      apps: ["a"],
      plan: () => ({ ...EMPTY_PLAN, deletes: [{ name: "a", keepFinalizers: [], delete: true }] }),
      calls: ["written a@12", "deleted a"],
    },
    {
      name: "an owner-reference strip stores the patched object",
      apps: ["a"],
      plan: () => ({ ...EMPTY_PLAN, ownerStrips: [{ name: "a" }] }),
      calls: ["written a@12"],
    },
    { name: "a dry run touches no cache", apps: ["a"], plan: update, dryRun: true, calls: [] },
  ])("$name", async ({ apps, plan, fail, dryRun, calls }) => {
    const set = appSet();
    const w = world(
      set,
      apps.map((n) => live(n, set, { spec: { project: "old" } })),
    );
    for (const verb of ["patch", "delete"] as const) {
      const make = fail?.[verb];
      let failed = false;
      if (make)
        w.client.interceptors[verb] = (action, next) =>
          !failed && action.resource === "applications" ? ((failed = true), Promise.reject(make())) : next();
    }
    const cache = recordingCache();
    await w.executor(dryRun ?? false, 4, cache).apply(set, plan(set));
    expect(cache.calls).toEqual(calls);
  });
});

describe("PlanExecutor: no double sync after a conflict", () => {
  const startedAt = "2026-01-01T00:00:00Z";
  const operation = { sync: { revision: "r2" }, initiatedBy: { username: "applicationset-controller", automated: true } };
  const stateFor = (revision: string, at: string) => ({
    operation: { sync: { revision } },
    phase: "Succeeded",
    startedAt: at,
    finishedAt: at,
    syncResult: { revision },
  });
  type Row = { name: string; meanwhile: (a: Application) => Application; withOperation?: boolean; written: boolean };
  it.each<Row>([
    {
      name: "does not write when the fresh Application already carries an operation",
      meanwhile: (a) => ({ ...a, operation }),
      written: false,
    },
    {
      name: "does not write when the sync of the pinned revision ran after the one the plan saw",
      meanwhile: (a) => ({ ...a, status: { operationState: stateFor("r2", "2026-01-01T00:05:00Z") } }),
      written: false,
    },
    {
      name: "writes again when the operation state is the one the plan saw",
      meanwhile: (a) => ({ ...a, metadata: { ...a.metadata, annotations: { x: "y" } } }),
      written: true,
    },
    {
      name: "writes again when the later sync was of another revision",
      meanwhile: (a) => ({ ...a, status: { operationState: stateFor("r1", "2026-01-01T00:05:00Z") } }),
      written: true,
    },
    {
      name: "writes again when the write carries no sync operation",
      meanwhile: (a) => ({ ...a, operation }),
      withOperation: false,
      written: true,
    },
  ])("$name", async ({ meanwhile, withOperation, written }) => {
    const set = appSet();
    const seen = live("a", set, { spec: { project: "old" }, status: { operationState: stateFor("r2", startedAt) } });
    const w = world(set, [seen]);
    const stored = parseApplication(w.client.peek(resources.Applications, { namespace: "argocd", name: "a" }));
    if (!stored.ok) throw stored.error;
    const desired = { ...desiredFrom(rendered("a"), set, settings()), ...(withOperation === false ? {} : { operation }) };
    const plan: Plan = { ...EMPTY_PLAN, writes: [{ name: "a", desired, change: appChange(desired, stored.value) as AppWrite["change"] }] };
    let conflicted = false;
    w.client.interceptors.patch = (action, next) => {
      if (conflicted || action.resource !== "applications") return next();
      conflicted = true;
      w.client.seed(resources.Applications, meanwhile(stored.value));
      return Promise.reject(conflict());
    };
    w.client.clearActions();
    await w.executor().apply(set, plan, { seen: new Map([["a", stored.value]]) });
    expect(w.client.actions.filter((a) => a.resource === "applications").map((a) => a.verb)).toEqual(
      written ? ["patch", "get", "patch"] : ["patch", "get"],
    );
  });
});

describe("PlanExecutor: fenced status writes", () => {
  const entry = (status: string) => ({ application: "a", status, message: `a is ${status}`, step: "1", targetRevisions: ["r1"] });
  const syncOfA = (set: ApplicationSet): AppWrite => ({
    name: "a",
    desired: desiredFrom(rendered("a"), set, settings()),
    change: { kind: "update", patch: { operation: { sync: { revisions: ["r1"] } } } },
  });

  it("refuses a plan made from an ApplicationSet older than the stored one: no Application is written, the newer status stays", async () => {
    const stored = appSet("guestbook", { status: { applicationStatus: [entry("Progressing")] } });
    const w = world(stored, [live("a", stored)]);
    const stale = appSet("guestbook", { metadata: { resourceVersion: "9" }, status: { applicationStatus: [entry("Pending")] } });
    const plan: Plan = { ...EMPTY_PLAN, applicationStatus: [entry("Progressing")], writes: [syncOfA(stale)] };
    await expect(w.executor().apply(stale, plan)).rejects.toBeInstanceOf(StatusConflictError);
    expect(verbs(w.client.actions)).toEqual(["patchStatus applicationsets/guestbook"]);
    const now = w.client.peek(resources.ApplicationSets, { namespace: "argocd", name: "guestbook" }) as ApplicationSet;
    expect(now.status?.applicationStatus?.map((e) => e.status)).toEqual(["Progressing"]);
  });

  it("carries each write's new resourceVersion to the next: applicationStatus, the status, then the metadata patch", async () => {
    const set = appSet();
    const w = world(set);
    const fences: unknown[] = [];
    for (const verb of ["patch", "patchStatus"] as const)
      w.client.interceptors[verb] = (action, next) => {
        if (action.resource === "applicationsets") fences.push((action.patch as { body: { metadata?: object } }).body.metadata);
        return next();
      };
    const plan: Plan = {
      ...EMPTY_PLAN,
      applicationStatus: [entry("Healthy")],
      status: { conditions: [] },
      appSetPatch: { metadata: { annotations: { "argocd.argoproj.io/application-set-refresh": null }, resourceVersion: "10" } },
    };
    const done = await w.executor().apply(set, plan);
    expect(fences).toEqual([
      { resourceVersion: "10" },
      { resourceVersion: "11" },
      // planned at 10, locked to the version the pass's own status writes left
      { annotations: { "argocd.argoproj.io/application-set-refresh": null }, resourceVersion: "12" },
    ]);
    expect(done.metadata.resourceVersion).toBe("13");
  });
});

describe("PlanExecutor: the ApplicationSet's metadata patches under the optimistic lock", () => {
  const REFRESH = "argocd.argoproj.io/application-set-refresh";
  const FINALIZER = "resources-finalizer.argocd.argoproj.io";

  /** `set` as stored, then changed by another writer (its resourceVersion moves past the one planned from). */
  async function changedMeanwhile(set: ApplicationSet) {
    const w = world(set);
    const key = { namespace: "argocd", name: "guestbook" };
    await w.client.patch(resources.ApplicationSets, key, { type: "merge", body: { metadata: { labels: { other: "writer" } } } });
    const stored = () => w.client.peek(resources.ApplicationSets, key) as ApplicationSet;
    return { w, stored };
  }

  it("refuses the refresh annotation's removal after another change with 409, sets RefreshApplicationError and fails the pass for a retry", async () => {
    const set = appSet("guestbook", { metadata: { annotations: { [REFRESH]: "true" } } });
    const { w, stored } = await changedMeanwhile(set);
    const plan = planAppSet(snapshot({ appSet: set, generation: generated([]) }), NOW, settings());
    expect(plan.appSetPatch).toEqual({ metadata: { annotations: null, resourceVersion: "10" } });
    await expect(w.executor().apply(set, { ...plan, status: undefined })).rejects.toMatchObject({
      reason: "RefreshApplicationError",
      message: expect.stringContaining("the object has been modified") as unknown,
    });
    expect(stored().metadata.annotations?.[REFRESH]).toBe("true");
    expect(stored().status?.conditions?.find((c) => c.type === "ErrorOccurred")).toMatchObject({
      status: "True",
      reason: "RefreshApplicationError",
    });
    // Retried from a fresh read, the removal goes through.
    const fresh = stored();
    const retry = planAppSet(snapshot({ appSet: fresh, generation: generated([]) }), NOW, settings());
    await w.executor().apply(fresh, { ...retry, status: undefined });
    expect(stored().metadata.annotations).toBeUndefined();
  });

  it.each([
    // deleting: whether the ApplicationSet is being deleted (the finalizer goes) or not (Reverse deletion adds it)
    { name: "removing the finalizer of a deleted ApplicationSet", deleting: true },
    { name: "adding the Reverse deletion finalizer", deleting: false },
  ])("fails $name after another change with the 409 itself and no condition", async ({ deleting }) => {
    const set = appSet("guestbook", {
      metadata: deleting ? { deletionTimestamp: "2026-01-01T00:00:00Z", finalizers: [FINALIZER] } : {},
    });
    const { w, stored } = await changedMeanwhile(set);
    const appSetPatch = deleting
      ? { metadata: { finalizers: null, resourceVersion: "10" } }
      : { metadata: { finalizers: [FINALIZER], resourceVersion: "10" } };
    await expect(w.executor().apply(set, { ...EMPTY_PLAN, appSetPatch })).rejects.toMatchObject({ status: 409 });
    expect(stored().metadata.finalizers ?? []).toEqual(deleting ? [FINALIZER] : []);
    expect(stored().status?.conditions ?? []).toEqual([]);
  });
});
