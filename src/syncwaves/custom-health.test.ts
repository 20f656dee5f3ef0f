import { describe, expect, it } from "vitest";
import type { Application } from "../api/index.js";
import { resources, type KubeObject, type ResourceDescriptor } from "../kube/index.js";
import { FakeKubeClient } from "../../test/support/fake-kube-client.js";
import { application, obj, task } from "../../test/unit/syncwaves/builders.js";
import { deletionHookOutcome } from "./app-deletion.js";
import { trackingId } from "./build.js";
import { compare } from "./compare.js";
import { parseArgoCdConfigMap, type ResourceCustomizations } from "./customizations/index.js";
import type { ClusterAccess } from "./destinations.js";
import { resourceHealth } from "./health/index.js";
import { observe } from "./observe.js";
import { planTerminate } from "./terminate.js";
import { observe as observeTask } from "./tasks.js";

const custom = (data: Record<string, string>): ResourceCustomizations => parseArgoCdConfigMap(data).customizations;

const DEGRADED_JOBS = custom({ "resource.customizations.health.batch_Job": 'return {status = "Degraded", message = "custom says no"}' });
const job = obj("Job", "migrate", { namespace: "web", status: { succeeded: 1, conditions: [{ type: "Complete", status: "True" }] } });

describe("custom Lua health in resourceHealth", () => {
  it("overrides the built-in check of its kind", () => {
    expect(resourceHealth(job)?.status).toBe("Healthy");
    expect(resourceHealth(job, { custom: DEGRADED_JOBS })).toEqual({ status: "Degraded", message: "custom says no" });
  });

  it("gives health to a kind without a built-in check", () => {
    const c = custom({
      "resource.customizations.health.ConfigMap": 'return {status = obj.data.ready == "yes" and "Healthy" or "Progressing"}',
    });
    expect(resourceHealth(obj("ConfigMap", "c"))).toBeUndefined();
    expect(resourceHealth({ ...obj("ConfigMap", "c"), data: { ready: "yes" } }, { custom: c })).toEqual({ status: "Healthy" });
  });

  it("applies a wildcard key to every kind it matches", () => {
    const c = custom({ "resource.customizations.health.*.example.com_*": 'return {status = "Suspended", message = obj.kind}' });
    expect(resourceHealth(obj("Widget", "w", { apiVersion: "shop.example.com/v1" }), { custom: c })).toEqual({
      status: "Suspended",
      message: "Widget",
    });
    expect(resourceHealth(obj("Widget", "w", { apiVersion: "shop.example.org/v1" }), { custom: c })).toBeUndefined();
  });

  it("reports a failing script as Unknown with the failure", () => {
    const c = custom({ "resource.customizations.health.batch_Job": "return obj.status.missing.field" });
    expect(resourceHealth(job, { custom: c })).toEqual({
      status: "Unknown",
      message: "<string>:1: attempt to index a nil value (field 'missing')",
    });
  });

  it("reports a script past its budget as Unknown", () => {
    const c = custom({ "resource.customizations.health.batch_Job": "while true do end" });
    expect(resourceHealth(job, { custom: c })).toEqual({ status: "Unknown", message: "health script exceeded its instruction budget" });
  });

  it("still shows an object being deleted as Pending deletion", () => {
    const deleting = obj("Job", "migrate", { deletionTimestamp: "2026-01-01T00:00:00Z" });
    expect(resourceHealth(deleting, { custom: DEGRADED_JOBS })).toEqual({ status: "Progressing", message: "Pending deletion" });
  });

  it.each([
    {
      name: "a Job falls back to Argo CD's Go check of Jobs",
      // the live object
      o: job,
      // the key of the custom check that returns nil
      key: "resource.customizations.health.batch_Job",
      want: { status: "Healthy", message: "" },
    },
    {
      name: "a CronJob gets no health: its built-in check is one of Argo CD's Lua scripts, which the custom one replaced",
      o: obj("CronJob", "nightly", { namespace: "web", spec: { suspend: true } }),
      key: "resource.customizations.health.batch_CronJob",
      want: undefined,
    },
    {
      name: "a kind without a built-in check gets no health",
      o: obj("ConfigMap", "c"),
      key: "resource.customizations.health.ConfigMap",
      want: undefined,
    },
    {
      name: "a kind without a built-in check is still Pending deletion while it is deleted",
      o: obj("ConfigMap", "c", { deletionTimestamp: "2026-01-01T00:00:00Z" }),
      key: "resource.customizations.health.ConfigMap",
      want: { status: "Progressing", message: "Pending deletion" },
    },
  ])("with a script that returns nil: $name", ({ o, key, want }) => {
    expect(resourceHealth(o, { custom: custom({ [key]: "return nil" }) })).toEqual(want);
  });

  it("decides alone, without the generation guard", () => {
    const c = custom({ "resource.customizations.health.apps_Deployment": 'return {status = "Healthy"}' });
    const lagging = obj("Deployment", "d", { generation: 2, spec: { replicas: 1 }, status: { observedGeneration: 1 } });
    expect(resourceHealth(lagging)?.status).toBe("Progressing");
    expect(resourceHealth(lagging, { custom: c })).toEqual({ status: "Healthy" });
  });
});

describe("custom health through the engine", () => {
  it("decides a compared resource's health and the Application's", () => {
    const c = compare([job], [job], [], { customizations: DEGRADED_JOBS });
    expect(c.resources[0]?.health).toEqual({ status: "Degraded", message: "custom says no" });
    expect(c.health.status).toBe("Degraded");
  });

  it("decides a running task's outcome", () => {
    const running = task(job, { live: job, state: { hookPhase: "Running" } });
    expect(observeTask(running).state.hookPhase).toBe("Succeeded");
    expect(observeTask(running, DEGRADED_JOBS).state).toMatchObject({ hookPhase: "Failed", message: "custom says no" });
  });

  it("decides a terminated hook's final phase", () => {
    const hook = { ...task(job, { hook: true, live: job, state: { hookPhase: "Running" } }), phase: "PreSync" as const };
    expect(planTerminate([hook]).tasks[0]?.state.hookPhase).toBe("Succeeded");
    expect(planTerminate([hook], DEGRADED_JOBS).tasks[0]?.state.hookPhase).toBe("Failed");
  });

  it("decides a deletion hook's outcome", () => {
    expect(deletionHookOutcome(job)).toBe("done");
    expect(deletionHookOutcome(job, DEGRADED_JOBS)).toBe("failed");
  });
});

const LEASES: ResourceDescriptor = { group: "coordination.k8s.io", version: "v1", plural: "leases", kind: "Lease", namespaced: true };
const app: Application = application({
  status: { resources: [{ group: "coordination.k8s.io", version: "v1", kind: "Lease", namespace: "web", name: "lock" }] },
});
const tracked = (o: KubeObject): KubeObject => ({
  ...o,
  metadata: { ...o.metadata, annotations: { "argocd.argoproj.io/tracking-id": trackingId("shop", o) } },
});

/** Observes `app` whose manifests are a ConfigMap, a Secret and a Lease, with the given customizations. */
async function observed(customizations: ResourceCustomizations | undefined): ReturnType<typeof observe> {
  const cm = { ...obj("ConfigMap", "settings", { namespace: "web" }), data: { replicas: "2" } };
  const secret = obj("Secret", "token", { namespace: "web" });
  const lease = obj("Lease", "lock", { apiVersion: "coordination.k8s.io/v1", namespace: "web" });
  const fake = new FakeKubeClient();
  fake.seed(resources.ConfigMaps, tracked({ ...cm, data: { replicas: "3" } }));
  fake.seed(LEASES, tracked(lease));
  const kinds: Record<string, ResourceDescriptor> = { ConfigMap: resources.ConfigMaps, Secret: resources.Secrets, Lease: LEASES };
  const access = {
    id: "local",
    client: fake,
    resolve: (o: KubeObject) => Promise.resolve(kinds[o.kind ?? ""]!),
  } as unknown as ClusterAccess;
  return observe({
    app,
    access,
    trackingName: "shop",
    source: { read: () => Promise.resolve({ revision: "abc123", objects: [cm, secret, lease] }) },
    customizations,
  });
}

describe("argocd-cm in a comparison", () => {
  it("leaves excluded kinds out of the targets and the live objects, with a warning each", async () => {
    const c = custom({ "resource.exclusions": "- kinds: [Secret]\n  clusters: ['https://kubernetes.default.svc']\n" });
    const o = await observed(c);
    expect(o.targets.map((t) => t.kind)).toEqual(["ConfigMap"]);
    expect(o.live.map((t) => t.kind)).toEqual(["ConfigMap"]);
    expect(o.excluded).toEqual([
      "Resource /Secret token is excluded in the settings",
      "Resource coordination.k8s.io/Lease lock is excluded in the settings",
    ]);
    expect(o.comparison.resources.map((r) => r.kind)).toEqual(["ConfigMap"]);
  });

  it("applies Argo CD's core exclusions whenever argocd-cm was read (an engine given no customizations filters nothing)", async () => {
    expect((await observed(undefined)).targets.map((t) => t.kind).sort()).toEqual(["ConfigMap", "Lease", "Secret"]);
    expect((await observed(custom({}))).targets.map((t) => t.kind).sort()).toEqual(["ConfigMap", "Secret"]);
  });

  it("adds the system-level ignore rules to the Application's", async () => {
    expect((await observed(custom({}))).comparison.resources.find((r) => r.kind === "ConfigMap")?.status).toBe("OutOfSync");
    const c = custom({ "resource.customizations.ignoreDifferences.ConfigMap": "jsonPointers:\n- /data/replicas\n" });
    expect((await observed(c)).comparison.resources.find((r) => r.kind === "ConfigMap")?.status).toBe("Synced");
  });

  it("applies an all-kinds rule to every kind", async () => {
    const c = custom({ "resource.customizations.ignoreDifferences.all": "jqPathExpressions:\n- .data\n" });
    expect((await observed(c)).comparison.resources.find((r) => r.kind === "ConfigMap")?.status).toBe("Synced");
  });
});
