import { describe, expect, it } from "vitest";
import { isAlreadyExists, isConflict, isInvalid, isNotFound, KubeApiError, KubeReason } from "../../../src/kube/errors.js";
import { FakeKubeClient } from "../../support/fake-kube-client.js";
import type { KubeObject } from "../../../src/kube/ports.js";
import { ApplicationSets, ConfigMaps, Namespaces } from "../../../src/kube/resources.js";

const cm = (name: string, data: Record<string, string> = {}, labels: Record<string, string> = {}): KubeObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace: "ns", labels },
  data,
});

describe("FakeKubeClient", () => {
  it("records every call in order, with its verb, resource and target", async () => {
    const fake = new FakeKubeClient();
    await fake.create(ConfigMaps, cm("a"));
    await fake.get(ConfigMaps, { namespace: "ns", name: "a" });
    await fake.patch(ConfigMaps, { namespace: "ns", name: "a" }, { type: "merge", body: { data: { k: "v" } } });
    await fake.delete(ConfigMaps, { namespace: "ns", name: "a" });
    await fake.get(ConfigMaps, { namespace: "ns", name: "a" }).catch(() => undefined);
    expect(fake.actions.map((a) => `${a.verb} ${a.resource} ${a.namespace}/${a.name}`)).toEqual([
      "create configmaps ns/a",
      "get configmaps ns/a",
      "patch configmaps ns/a",
      "delete configmaps ns/a",
      "get configmaps ns/a",
    ]);
  });

  it("assigns uid, resourceVersion and generation, bumping generation only when the spec changes", async () => {
    const fake = new FakeKubeClient();
    const created = await fake.create(ApplicationSets, { metadata: { name: "s", namespace: "ns" }, spec: { a: 1 } });
    expect(created.metadata).toMatchObject({ uid: "uid-1", resourceVersion: "1", generation: 1 });
    const relabelled = await fake.patch(
      ApplicationSets,
      { namespace: "ns", name: "s" },
      { type: "merge", body: { metadata: { labels: { x: "y" } } } },
    );
    expect(relabelled.metadata).toMatchObject({ uid: "uid-1", resourceVersion: "2", generation: 1 });
    const respec = await fake.update(ApplicationSets, { ...relabelled, spec: { a: 2 } });
    expect(respec.metadata).toMatchObject({ resourceVersion: "3", generation: 2 });
    const status = await fake.patchStatus(
      ApplicationSets,
      { namespace: "ns", name: "s" },
      { type: "merge", body: { status: { ok: true } } },
    );
    expect(status.metadata?.generation).toBe(2);
    expect(status.status).toEqual({ ok: true });
  });

  it.each([
    // name: the failure; act: the call that must fail; check: the predicate it satisfies
    {
      name: "creating a taken name is AlreadyExists",
      act: (f: FakeKubeClient) => f.create(ConfigMaps, cm("a")),
      check: isAlreadyExists,
    },
    {
      name: "updating with a stale resourceVersion is a Conflict",
      act: (f: FakeKubeClient) => f.update(ConfigMaps, { ...cm("a"), metadata: { name: "a", namespace: "ns", resourceVersion: "0" } }),
      check: isConflict,
    },
    {
      name: "deleting with a wrong uid precondition is a Conflict",
      act: (f: FakeKubeClient) => f.delete(ConfigMaps, { namespace: "ns", name: "a" }, { preconditions: { uid: "other" } }),
      check: isConflict,
    },
    {
      name: "getting a missing object is NotFound",
      act: (f: FakeKubeClient) => f.get(ConfigMaps, { namespace: "ns", name: "zz" }),
      check: isNotFound,
    },
    {
      name: "a JSON patch whose test fails is Invalid",
      act: (f: FakeKubeClient) =>
        f.patch(ConfigMaps, { namespace: "ns", name: "a" }, { type: "json", ops: [{ op: "test", path: "/data/k", value: "no" }] }),
      check: isInvalid,
    },
  ])("$name", async ({ act, check }) => {
    const fake = new FakeKubeClient();
    fake.seed(ConfigMaps, cm("a", { k: "v" }));
    const err = await act(fake).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(check(err)).toBe(true);
  });

  it("lets an interceptor fail one verb while the others pass through", async () => {
    const fake = new FakeKubeClient();
    fake.seed(ConfigMaps, cm("a"));
    fake.interceptors.update = () => Promise.reject(new KubeApiError({ status: 500, reason: KubeReason.ServerError, message: "injected" }));
    await expect(fake.update(ConfigMaps, cm("a"))).rejects.toThrow("injected");
    await expect(fake.get(ConfigMaps, { namespace: "ns", name: "a" })).resolves.toMatchObject({ metadata: { name: "a" } });
    expect(fake.actions.map((a) => a.verb)).toEqual(["update", "get"]);
  });

  it("lets an interceptor observe and then delegate to the fake's own behaviour", async () => {
    const fake = new FakeKubeClient();
    const seen: string[] = [];
    fake.interceptors.create = (action, next) => {
      seen.push(action.name ?? "");
      return next();
    };
    await fake.create(ConfigMaps, cm("a"));
    expect(seen).toEqual(["a"]);
    expect(fake.peek(ConfigMaps, { namespace: "ns", name: "a" })).toBeDefined();
  });

  it("stores nothing on a dry run but still answers with the object", async () => {
    const fake = new FakeKubeClient();
    const answer = await fake.create(ConfigMaps, cm("a"), { dryRun: true });
    expect(answer.metadata?.name).toBe("a");
    expect(fake.peek(ConfigMaps, { namespace: "ns", name: "a" })).toBeUndefined();
  });

  it("lists by namespace and label selector", async () => {
    const fake = new FakeKubeClient();
    fake.seed(ConfigMaps, cm("a", {}, { app: "x" }), cm("b", {}, { app: "y" }), {
      ...cm("c", {}, { app: "x" }),
      metadata: { name: "c", namespace: "other", labels: { app: "x" } },
    });
    const page = await fake.list(ConfigMaps, { namespace: "ns", labelSelector: "app=x" });
    expect(page.items.map((i) => i.metadata?.name)).toEqual(["a"]);
  });

  it("returns copies, so a caller mutating a result does not change the store", async () => {
    const fake = new FakeKubeClient();
    fake.seed(ConfigMaps, cm("a", { k: "v" }));
    const got = await fake.get(ConfigMaps, { namespace: "ns", name: "a" });
    (got.data as Record<string, string>).k = "changed";
    expect(fake.peek(ConfigMaps, { namespace: "ns", name: "a" })?.data).toEqual({ k: "v" });
  });

  it("creates on an apply patch of a missing object and names cluster-scoped objects without a namespace", async () => {
    const fake = new FakeKubeClient();
    const applied = await fake.patch(
      Namespaces,
      { name: "team" },
      { type: "apply", body: { metadata: { name: "team" } }, fieldManager: "t", force: true },
    );
    expect(applied.metadata).toMatchObject({ name: "team", resourceVersion: "1" });
    expect(applied.metadata?.namespace).toBeUndefined();
    expect(fake.actions[0]).toMatchObject({ verb: "patch", resource: "namespaces", name: "team" });
  });
});
