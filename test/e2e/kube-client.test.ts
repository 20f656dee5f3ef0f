/**
 * The kube adapter against the real apiserver: every verb on a core kind (ConfigMap) and on a
 * CRD-backed kind with a status subresource (ApplicationSet), every patch type, dry runs, discovery,
 * and the mapping of the apiserver's failures to stable reasons with the apiserver's own messages.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import {
  Discovery,
  KubeApiClient,
  KubeApiError,
  KubeReason,
  KubeTransport,
  loadKubeConfig,
  resources,
  type KubeObject,
  type Patch,
} from "../../src/kube/index.js";

const { ApplicationSets, ConfigMaps, Namespaces } = resources;

let client: KubeApiClient;
let ns: string;

beforeAll(async () => {
  client = KubeApiClient.fromConfig({ kind: "file", path: inject("kubeconfigPath") }, { fieldManager: "appset-e2e" });
  ns = `kube-client-${randomBytes(3).toString("hex")}`;
  await client.create(Namespaces, { metadata: { name: ns } });
});

afterAll(async () => {
  await client.delete(Namespaces, { name: ns });
  await client.transport.close();
});

const uniq = (prefix: string): string => `${prefix}-${randomBytes(3).toString("hex")}`;

const configMap = (name: string, data: Record<string, string> = { a: "1" }, labels: Record<string, string> = {}): KubeObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace: ns, labels },
  data,
});

const appSet = (name: string): KubeObject => ({
  apiVersion: "argoproj.io/v1alpha1",
  kind: "ApplicationSet",
  metadata: { name, namespace: ns },
  spec: {
    generators: [{ list: { elements: [{ env: "dev" }] } }],
    template: {
      metadata: { name: "{{env}}-app" },
      spec: { project: "default", destination: { server: "https://kubernetes.default.svc", namespace: "x" } },
    },
  },
});

/** The KubeApiError a call fails with (fails the test when it succeeds). */
async function failure(call: Promise<unknown>): Promise<KubeApiError> {
  try {
    await call;
  } catch (err) {
    if (err instanceof KubeApiError) return err;
    throw err;
  }
  throw new Error("the call succeeded");
}

describe("every verb on ConfigMaps", () => {
  it("creates, gets, lists by label, updates, deletes, and then no longer finds the object", async () => {
    const name = uniq("cm");
    const created = await client.create(ConfigMaps, configMap(name, { a: "1" }, { suite: name }));
    expect(created.metadata).toMatchObject({ name, namespace: ns });
    expect(created.metadata?.uid).toMatch(/.+/);
    expect(typeof created.metadata?.creationTimestamp).toBe("string");

    const got = await client.get(ConfigMaps, { namespace: ns, name });
    expect(got).toMatchObject({ apiVersion: "v1", kind: "ConfigMap", data: { a: "1" } });

    await client.create(ConfigMaps, configMap(uniq("other")));
    const listed = await client.list(ConfigMaps, { namespace: ns, labelSelector: `suite=${name}` });
    expect(listed.items.map((i) => i.metadata?.name)).toEqual([name]);
    expect(listed.items[0]).toMatchObject({ apiVersion: "v1", kind: "ConfigMap" });
    expect(listed.resourceVersion).toMatch(/^\d+$/);

    const updated = await client.update(ConfigMaps, { ...got, data: { a: "2" } });
    expect(updated.data).toEqual({ a: "2" });
    expect(updated.metadata?.resourceVersion).not.toBe(got.metadata?.resourceVersion);

    await client.delete(ConfigMaps, { namespace: ns, name }, { propagationPolicy: "Background" });
    expect((await failure(client.get(ConfigMaps, { namespace: ns, name }))).reason).toBe(KubeReason.NotFound);
  });

  it("pages through a list with limit and continue", async () => {
    const label = uniq("page");
    for (let i = 0; i < 3; i++) await client.create(ConfigMaps, configMap(`${label}-${i}`, {}, { page: label }));
    const first = await client.list(ConfigMaps, { namespace: ns, labelSelector: `page=${label}`, limit: 2 });
    expect(first.items).toHaveLength(2);
    expect(first.continue).toBeDefined();
    const second = await client.list(ConfigMaps, { namespace: ns, labelSelector: `page=${label}`, limit: 2, continue: first.continue });
    expect(second.items).toHaveLength(1);
    expect(second.continue).toBeUndefined();
  });

  it.each<{ name: string; patch: Patch; expected: Record<string, string> }>([
    // name: the patch type; patch: what is sent; expected: the data afterwards (starting from {a: "1", b: "2"})
    {
      name: "a JSON merge patch merges keys and deletes with null",
      patch: { type: "merge", body: { data: { a: "9", b: null } } },
      expected: { a: "9" },
    },
    {
      name: "a JSON patch applies its operations",
      patch: {
        type: "json",
        ops: [
          { op: "replace", path: "/data/a", value: "7" },
          { op: "add", path: "/data/c", value: "3" },
        ],
      },
      expected: { a: "7", b: "2", c: "3" },
    },
    {
      name: "a strategic merge patch merges keys",
      patch: { type: "strategic", body: { data: { c: "3" } } },
      expected: { a: "1", b: "2", c: "3" },
    },
    {
      name: "a server-side apply takes ownership of the fields it sends",
      patch: {
        type: "apply",
        fieldManager: "e2e-apply",
        force: true,
        body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "placeholder" }, data: { a: "5" } },
      },
      expected: { a: "5", b: "2" },
    },
  ])("$name", async ({ patch, expected }) => {
    const name = uniq("patch");
    await client.create(ConfigMaps, configMap(name, { a: "1", b: "2" }));
    const body = patch.type === "apply" ? { ...patch, body: { ...patch.body, metadata: { name, namespace: ns } } } : patch;
    const patched = await client.patch(ConfigMaps, { namespace: ns, name }, body);
    expect(patched.data).toEqual(expected);
    expect((await client.get(ConfigMaps, { namespace: ns, name })).data).toEqual(expected);
    if (patch.type === "apply") {
      const managers = (patched.metadata?.managedFields as Array<{ manager: string; operation: string }>).map(
        (m) => `${m.manager}:${m.operation}`,
      );
      expect(managers).toContain("e2e-apply:Apply");
    }
  });

  it("creates an object with a server-side apply when it does not exist", async () => {
    const name = uniq("apply");
    const applied = await client.patch(
      ConfigMaps,
      { namespace: ns, name },
      { type: "apply", fieldManager: "e2e-apply", force: false, body: configMap(name, { x: "1" }) },
    );
    expect(applied.data).toEqual({ x: "1" });
  });
});

describe("failures map to stable reasons and keep the apiserver's message", () => {
  it.each([
    // name: the failing call; act: it; reason: the KubeReason; status: HTTP status; message: part of the apiserver's message
    {
      name: "getting a missing object is NotFound",
      act: () => client.get(ConfigMaps, { namespace: ns, name: "does-not-exist" }),
      reason: KubeReason.NotFound,
      status: 404,
      message: 'configmaps "does-not-exist" not found',
    },
    {
      name: "creating the same name twice is AlreadyExists",
      act: async () => {
        const name = uniq("twice");
        await client.create(ConfigMaps, configMap(name));
        return client.create(ConfigMaps, configMap(name));
      },
      reason: KubeReason.AlreadyExists,
      status: 409,
      message: "already exists",
    },
    {
      name: "updating with a stale resourceVersion is a Conflict",
      act: async () => {
        const created = await client.create(ConfigMaps, configMap(uniq("stale")));
        await client.update(ConfigMaps, { ...created, data: { a: "2" } });
        return client.update(ConfigMaps, { ...created, data: { a: "3" } });
      },
      reason: KubeReason.Conflict,
      status: 409,
      message: "the object has been modified",
    },
    {
      name: "deleting with a wrong uid precondition is a Conflict",
      act: async () => {
        const name = uniq("precond");
        await client.create(ConfigMaps, configMap(name));
        return client.delete(ConfigMaps, { namespace: ns, name }, { preconditions: { uid: "00000000-0000-0000-0000-000000000000" } });
      },
      reason: KubeReason.Conflict,
      status: 409,
      message: "the UID in the precondition (00000000-0000-0000-0000-000000000000) does not match",
    },
    {
      name: "deleting with a stale resourceVersion precondition is a Conflict",
      act: async () => {
        const created = await client.create(ConfigMaps, configMap(uniq("precond-rv")));
        await client.update(ConfigMaps, { ...created, data: { a: "2" } });
        return client.delete(
          ConfigMaps,
          { namespace: ns, name: created.metadata?.name ?? "" },
          { preconditions: { resourceVersion: created.metadata?.resourceVersion } },
        );
      },
      reason: KubeReason.Conflict,
      status: 409,
      message: "the ResourceVersion in the precondition",
    },
    {
      name: "an invalid object name is Invalid",
      act: () => client.create(ConfigMaps, configMap("Not_A_DNS_Name")),
      reason: KubeReason.Invalid,
      status: 422,
      message: "metadata.name: Invalid value",
    },
    {
      name: "an ApplicationSet violating its schema is Invalid",
      act: () => {
        const broken = appSet(uniq("broken"));
        delete (broken.spec as Record<string, unknown>).template;
        return client.create(ApplicationSets, broken);
      },
      reason: KubeReason.Invalid,
      status: 422,
      message: "spec.template: Required value",
    },
    {
      name: "a strategic merge patch on a custom resource is Invalid (unsupported media type)",
      act: async () => {
        const name = uniq("smp");
        await client.create(ApplicationSets, appSet(name));
        return client.patch(ApplicationSets, { namespace: ns, name }, { type: "strategic", body: { metadata: { labels: { a: "b" } } } });
      },
      reason: KubeReason.Invalid,
      status: 415,
      message: "the body of the request was in an unknown format",
    },
    {
      name: "a JSON patch whose test fails is Invalid",
      act: async () => {
        const name = uniq("jp");
        await client.create(ConfigMaps, configMap(name));
        return client.patch(ConfigMaps, { namespace: ns, name }, { type: "json", ops: [{ op: "test", path: "/data/a", value: "nope" }] });
      },
      reason: KubeReason.Invalid,
      status: 422,
      message: "the server rejected our request due to an error in our request",
    },
  ])("$name", async ({ act, reason, status, message }) => {
    const err = await failure(act());
    expect(err.reason).toBe(reason);
    expect(err.status).toBe(status);
    expect(err.message).toContain(message);
  });

  it("an object too large to store is refused before it is sent, and the shared connection keeps serving the rest", async () => {
    const big = uniq("big");
    const writes = [
      failure(client.create(ConfigMaps, configMap(big, { a: "x".repeat(2 * 1024 * 1024) }))),
      ...Array.from({ length: 20 }, (_, i) => client.create(ConfigMaps, configMap(uniq(`small-${String(i)}`)))),
    ];
    const [err, ...small] = await Promise.all(writes);
    expect({ reason: (err as KubeApiError).reason, status: (err as KubeApiError).status }).toEqual({
      reason: KubeReason.RequestEntityTooLarge,
      status: 413,
    });
    expect((err as KubeApiError).message).toMatch(
      /^not sent: the request body is \d+ bytes, more than the 1572864 the apiserver can store/,
    );
    expect(small.every((o) => (o as KubeObject).metadata?.uid !== undefined)).toBe(true);
    await expect(client.get(ConfigMaps, { namespace: ns, name: big })).rejects.toMatchObject({ reason: KubeReason.NotFound });
  });

  it("a connection refused is Network", async () => {
    const kc = loadKubeConfig({ kind: "file", path: inject("kubeconfigPath") });
    kc.clusters = kc.clusters.map((c) => ({ ...c, server: "https://127.0.0.1:1" }));
    const dead = new KubeApiClient(new KubeTransport(kc));
    const err = await failure(dead.get(ConfigMaps, { namespace: ns, name: "x" }));
    expect(err.reason).toBe(KubeReason.Network);
    expect(err.status).toBe(0);
  });
});

describe("every verb on a CRD-backed resource with a status subresource", () => {
  it("creates, reads, updates, patches (merge, JSON, apply) and deletes an ApplicationSet", async () => {
    const name = uniq("appset");
    const key = { namespace: ns, name };
    const created = await client.create(ApplicationSets, appSet(name));
    expect(created.metadata?.generation).toBe(1);
    expect((await client.list(ApplicationSets, { namespace: ns })).items.map((i) => i.metadata?.name)).toContain(name);

    const updated = await client.update(ApplicationSets, { ...created, spec: { ...(created.spec as object), goTemplate: true } });
    expect(updated.metadata?.generation).toBe(2);

    const merged = await client.patch(ApplicationSets, key, { type: "merge", body: { metadata: { labels: { team: "a" } } } });
    expect(merged.metadata?.labels).toEqual({ team: "a" });
    const jsonPatched = await client.patch(ApplicationSets, key, {
      type: "json",
      ops: [{ op: "add", path: "/spec/goTemplateOptions", value: ["missingkey=error"] }],
    });
    expect((jsonPatched.spec as Record<string, unknown>).goTemplateOptions).toEqual(["missingkey=error"]);
    const applied = await client.patch(ApplicationSets, key, {
      type: "apply",
      fieldManager: "e2e-apply",
      force: true,
      body: {
        apiVersion: "argoproj.io/v1alpha1",
        kind: "ApplicationSet",
        metadata: { name, namespace: ns, annotations: { owner: "e2e" } },
      },
    });
    expect(applied.metadata?.annotations).toEqual({ owner: "e2e" });

    await client.delete(ApplicationSets, key, { propagationPolicy: "Background" });
    expect((await failure(client.get(ApplicationSets, key))).reason).toBe(KubeReason.NotFound);
  });

  it("writes status only through the status subresource, and spec only through the main resource", async () => {
    const name = uniq("status");
    const key = { namespace: ns, name };
    const created = await client.create<KubeObject>(ApplicationSets, { ...appSet(name), status: { conditions: [] } });
    const status = { conditions: [{ type: "ErrorOccurred", status: "False", reason: "ApplicationSetUpToDate", message: "ok" }] };

    const viaMain = await client.update<KubeObject>(ApplicationSets, { ...created, status });
    expect(viaMain.status).toBeUndefined();

    const viaStatus = await client.updateStatus<KubeObject>(ApplicationSets, {
      ...viaMain,
      spec: { ...(viaMain.spec as object), goTemplate: true },
      status,
    });
    expect(viaStatus.status).toEqual(status);
    expect((viaStatus.spec as Record<string, unknown>).goTemplate).toBeUndefined();
    expect(viaStatus.metadata?.generation).toBe(viaMain.metadata?.generation);

    const patched = await client.patchStatus(ApplicationSets, key, { type: "merge", body: { status: { resourcesCount: 3 } } });
    expect(patched.status).toMatchObject({ ...status, resourcesCount: 3 });
    const jsonPatched = await client.patchStatus(ApplicationSets, key, {
      type: "json",
      ops: [{ op: "replace", path: "/status/resourcesCount", value: 4 }],
    });
    expect((jsonPatched.status as Record<string, unknown>).resourcesCount).toBe(4);
    const stale = await failure(client.updateStatus(ApplicationSets, { ...viaMain, status }));
    expect(stale.reason).toBe(KubeReason.Conflict);
  });
});

describe("dry runs", () => {
  it("validates every write but persists none of them", async () => {
    const name = uniq("dry");
    const key = { namespace: ns, name };
    const dryCreated = await client.create(ConfigMaps, configMap(name), { dryRun: true });
    expect(dryCreated.metadata?.name).toBe(name);
    expect((await failure(client.get(ConfigMaps, key))).reason).toBe(KubeReason.NotFound);

    const live = await client.create(ConfigMaps, configMap(name, { a: "1" }));
    const dryUpdated = await client.update(ConfigMaps, { ...live, data: { a: "2" } }, { dryRun: true });
    expect(dryUpdated.data).toEqual({ a: "2" });
    await client.patch(ConfigMaps, key, { type: "merge", body: { data: { a: "3" } } }, { dryRun: true });
    await client.patch(
      ConfigMaps,
      key,
      { type: "apply", fieldManager: "dry", force: true, body: configMap(name, { a: "4" }) },
      { dryRun: true },
    );
    await client.delete(ConfigMaps, key, { dryRun: true });

    const after = await client.get(ConfigMaps, key);
    expect(after.data).toEqual({ a: "1" });
    expect(after.metadata?.resourceVersion).toBe(live.metadata?.resourceVersion);
  });

  it("still rejects an invalid object on a dry run", async () => {
    const err = await failure(client.create(ConfigMaps, configMap("Bad_Name"), { dryRun: true }));
    expect(err.reason).toBe(KubeReason.Invalid);
  });

  it("leaves status untouched on a dry-run status write", async () => {
    const name = uniq("drystatus");
    const created = await client.create(ApplicationSets, appSet(name));
    await client.updateStatus(ApplicationSets, { ...created, status: { resourcesCount: 1 } }, { dryRun: true });
    expect((await client.get(ApplicationSets, { namespace: ns, name })).status).toBeUndefined();
  });
});

describe("discovery", () => {
  it.each([
    // name: the kind; apiVersion, kind: the input; expected: the resolved descriptor
    { name: "a core kind", apiVersion: "v1", kind: "ConfigMap", expected: ConfigMaps },
    { name: "a cluster-scoped core kind", apiVersion: "v1", kind: "Namespace", expected: Namespaces },
    { name: "a custom kind", apiVersion: "argoproj.io/v1alpha1", kind: "ApplicationSet", expected: ApplicationSets },
    {
      name: "a grouped built-in kind",
      apiVersion: "apps/v1",
      kind: "Deployment",
      expected: { group: "apps", version: "v1", plural: "deployments", kind: "Deployment", namespaced: true },
    },
  ])("maps $name to its resource", async ({ apiVersion, kind, expected }) => {
    expect(await new Discovery(client.transport).resourceFor(apiVersion, kind)).toEqual(expected);
  });

  it.each([
    // name: what is unknown; apiVersion, kind: the input
    { name: "an unknown kind in a known group", apiVersion: "v1", kind: "Nope" },
    { name: "an unknown group", apiVersion: "nope.example.com/v1", kind: "Thing" },
  ])("fails with NotFound for $name", async ({ apiVersion, kind }) => {
    const err = await failure(new Discovery(client.transport).resourceFor(apiVersion, kind));
    expect(err.reason).toBe(KubeReason.NotFound);
  });
});
