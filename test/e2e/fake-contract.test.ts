/**
 * The fake client's rules held to the real API server's: the same script runs against both and
 * must observe the same.
 * - Deletion: an object with finalizers is only marked (deletionTimestamp set, still readable); it
 *   goes once its last finalizer is removed; one without finalizers goes at once.
 * - Optimistic concurrency: a write carrying a stale resourceVersion (update, status update, delete
 *   precondition, a merge patch or status merge patch naming one) fails with 409 Conflict and
 *   changes nothing.
 * - Generation: it starts at 1 and goes up on a spec change only, never on a status or a
 *   metadata-only change (an ApplicationSet: a custom resource with a status subresource).
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { KubeApiClient, resources, toKubeApiError, type KubeClient, type KubeObject } from "../../src/kube/index.js";
import { FakeKubeClient } from "../support/fake-kube-client.js";

let real: KubeApiClient;
let ns: string;

beforeAll(async () => {
  real = KubeApiClient.fromConfig({ kind: "file", path: inject("kubeconfigPath") });
  ns = `fake-contract-${randomBytes(3).toString("hex")}`;
  await real.create(resources.Namespaces, { metadata: { name: ns } });
});

afterAll(async () => {
  await real.delete(resources.Namespaces, { name: ns });
  await real.transport.close();
});

/** What a client shows along the script: whether the object exists and is marked, after each step. */
async function script(client: KubeClient, namespace: string): Promise<string[]> {
  const seen: string[] = [];
  const look = async (name: string): Promise<void> => {
    const o = await client.get(resources.ConfigMaps, { namespace, name }).catch(() => undefined);
    seen.push(
      o === undefined
        ? `${name}: gone`
        : `${name}: ${o.metadata?.deletionTimestamp == null ? "live" : "marked"} ${JSON.stringify(o.metadata?.finalizers ?? [])}`,
    );
  };
  await client.create(resources.ConfigMaps, { metadata: { name: "plain", namespace } });
  await client.create(resources.ConfigMaps, { metadata: { name: "held", namespace, finalizers: ["example.com/a", "example.com/b"] } });
  await client.delete(resources.ConfigMaps, { namespace, name: "plain" });
  await look("plain");
  await client.delete(resources.ConfigMaps, { namespace, name: "held" });
  await look("held");
  await client.patch(
    resources.ConfigMaps,
    { namespace, name: "held" },
    { type: "json", ops: [{ op: "remove", path: "/metadata/finalizers/0" }] },
  );
  await look("held");
  await client.patch(resources.ConfigMaps, { namespace, name: "held" }, { type: "merge", body: { metadata: { finalizers: null } } });
  await look("held");
  return seen;
}

describe("the fake client deletes as the API server does", () => {
  it("marks an object with finalizers and removes it with its last finalizer", async () => {
    const want = ["plain: gone", 'held: marked ["example.com/a","example.com/b"]', 'held: marked ["example.com/b"]', "held: gone"];
    expect(await script(real, ns)).toEqual(want);
    expect(await script(new FakeKubeClient(), ns)).toEqual(want);
  });
});

/** How a write ended: "ok", or the HTTP status and reason of its error. */
async function outcome(write: Promise<unknown>): Promise<string> {
  try {
    await write;
    return "ok";
  } catch (err) {
    const e = toKubeApiError(err);
    return `${e.status} ${e.reason}`;
  }
}

/** Writes with a fresh and then a stale resourceVersion; what each returned, and what is left. */
async function staleScript(client: KubeClient, namespace: string): Promise<string[]> {
  const key = { namespace, name: "versioned" };
  const first = await client.create<KubeObject>(resources.ConfigMaps, { metadata: { name: "versioned", namespace }, data: { n: "1" } });
  const stale = first.metadata?.resourceVersion;
  const seen = [await outcome(client.update(resources.ConfigMaps, { ...first, data: { n: "2" } }))];
  seen.push(await outcome(client.update(resources.ConfigMaps, { ...first, data: { n: "3" } })));
  seen.push(
    await outcome(client.delete(resources.ConfigMaps, key, stale === undefined ? {} : { preconditions: { resourceVersion: stale } })),
  );
  const left = await client.get(resources.ConfigMaps, key);
  seen.push(`data ${JSON.stringify(left.data)}`);

  const appSet = await client.create(resources.ApplicationSets, appSetObject("versioned", namespace));
  await client.patch(
    resources.ApplicationSets,
    { namespace, name: "versioned" },
    { type: "merge", body: { metadata: { labels: { touched: "yes" } } } },
  );
  seen.push(await outcome(client.updateStatus(resources.ApplicationSets, { ...appSet, status: { resourcesCount: 1 } })));
  seen.push(await outcome(client.update(resources.ApplicationSets, { ...appSet, spec: { ...(appSet.spec as object), goTemplate: true } })));
  const fenced = (resourceVersion: string | undefined, status: object) => ({
    type: "merge" as const,
    body: { metadata: { resourceVersion }, status },
  });
  const appSetKey = { namespace, name: "versioned" };
  seen.push(
    await outcome(
      client.patchStatus(resources.ApplicationSets, appSetKey, fenced(appSet.metadata?.resourceVersion, { resourcesCount: 2 })),
    ),
  );
  const current = await client.get(resources.ApplicationSets, appSetKey);
  seen.push(
    await outcome(
      client.patchStatus(resources.ApplicationSets, appSetKey, fenced(current.metadata?.resourceVersion, { resourcesCount: 3 })),
    ),
  );
  seen.push(
    await outcome(
      client.patch(resources.ApplicationSets, appSetKey, {
        type: "merge",
        body: { metadata: { resourceVersion: appSet.metadata?.resourceVersion, labels: { stale: "yes" } } },
      }),
    ),
  );
  const after = await client.get(resources.ApplicationSets, appSetKey);
  seen.push(`status ${JSON.stringify(after.status)} labels ${JSON.stringify(after.metadata?.labels)}`);
  return seen;
}

/** An ApplicationSet the CRD's schema admits. */
function appSetObject(name: string, namespace: string): KubeObject {
  return {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "ApplicationSet",
    metadata: { name, namespace },
    spec: {
      generators: [{ list: { elements: [] } }],
      template: {
        metadata: { name: "{{name}}" },
        spec: {
          project: "default",
          source: { repoURL: "https://example.com/repo.git", path: "." },
          destination: { server: "https://kubernetes.default.svc", namespace },
        },
      },
    },
  };
}

/** The generation after each kind of write: create, metadata-only, status-only, spec changes. */
async function generationScript(client: KubeClient, namespace: string): Promise<string[]> {
  const key = { namespace, name: "generations" };
  const seen: string[] = [];
  const note = (step: string, o: KubeObject): void => {
    seen.push(`${step}: ${o.metadata?.generation}`);
  };
  const get = (): Promise<KubeObject> => client.get(resources.ApplicationSets, key);
  note("created", await client.create(resources.ApplicationSets, appSetObject("generations", namespace)));
  await client.patch(resources.ApplicationSets, key, {
    type: "merge",
    body: { metadata: { labels: { team: "a" }, annotations: { note: "x" } } },
  });
  note("labels and annotations patched", await get());
  const labelled = await get();
  await client.update(resources.ApplicationSets, { ...labelled, metadata: { ...labelled.metadata, labels: { team: "b" } } });
  note("labels updated", await get());
  await client.patchStatus(resources.ApplicationSets, key, { type: "merge", body: { status: { resourcesCount: 2 } } });
  note("status patched", await get());
  const withStatus = await get();
  await client.updateStatus(resources.ApplicationSets, { ...withStatus, status: { resourcesCount: 3 } });
  note("status updated", await get());
  await client.patch(resources.ApplicationSets, key, { type: "merge", body: { spec: { goTemplate: true } } });
  note("spec patched", await get());
  const patched = await get();
  await client.update(resources.ApplicationSets, {
    ...patched,
    spec: { ...(patched.spec as object), syncPolicy: { preserveResourcesOnDeletion: true } },
  });
  note("spec updated", await get());
  const same = await get();
  await client.update(resources.ApplicationSets, same);
  note("updated unchanged", await get());
  return seen;
}

describe("the fake client versions objects as the API server does", () => {
  it("rejects every write carrying a stale resourceVersion with 409 Conflict", async () => {
    const want = [
      "ok",
      "409 Conflict",
      "409 Conflict",
      'data {"n":"2"}',
      "409 Conflict",
      "409 Conflict",
      "409 Conflict",
      "ok",
      "409 Conflict",
      'status {"resourcesCount":3} labels {"touched":"yes"}',
    ];
    expect(await staleScript(real, ns)).toEqual(want);
    expect(await staleScript(new FakeKubeClient(), ns)).toEqual(want);
  });

  it("bumps the generation on a spec change only, not on a status or metadata-only change", async () => {
    const want = [
      "created: 1",
      "labels and annotations patched: 1",
      "labels updated: 1",
      "status patched: 1",
      "status updated: 1",
      "spec patched: 2",
      "spec updated: 3",
      "updated unchanged: 3",
    ];
    expect(await generationScript(real, ns)).toEqual(want);
    expect(await generationScript(new FakeKubeClient(), ns)).toEqual(want);
  });
});
