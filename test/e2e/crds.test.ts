/**
 * The CRDs of deploy/crds on a real apiserver: objects holding every field of the examples are
 * stored and read back unchanged (nothing pruned, validated with `fieldValidation=Strict`), status
 * is written where Argo CD writes it (ApplicationSet: /status subresource; Application: the main
 * resource), and objects violating the schema are rejected with the apiserver's own message.
 */
import { ApiException, CustomObjectsApi, type KubeConfig } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseApplication, parseApplicationSet, parseAppProject } from "../../src/api/index.js";
import { FIXTURES, loadFixture } from "../fixtures/load.js";
import { createNamespace, deleteNamespace, sharedKubeConfig } from "./support/namespace.js";

type Obj = Record<string, unknown>;

const GROUP = "argoproj.io";
const VERSION = "v1alpha1";

let kc: KubeConfig;
let api: CustomObjectsApi;
let ns: string;

beforeAll(async () => {
  kc = sharedKubeConfig();
  api = kc.makeApiClient(CustomObjectsApi);
  ns = await createNamespace(kc, "crds");
});

afterAll(async () => {
  await deleteNamespace(kc, ns);
});

/** A fixture placed in the test namespace, without finalizers (no controller runs to remove them). */
function fixtureIn(file: string, name?: string): Obj {
  const obj = loadFixture(file);
  const meta = obj["metadata"] as Obj;
  meta["namespace"] = ns;
  if (name !== undefined) meta["name"] = name;
  delete meta["finalizers"];
  return obj;
}

function nameOf(obj: Obj): string {
  return (obj["metadata"] as { name: string }).name;
}

async function create(plural: string, body: Obj): Promise<Obj> {
  return (await api.createNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    namespace: ns,
    plural,
    body,
    fieldValidation: "Strict",
  })) as Obj;
}

async function get(plural: string, name: string): Promise<Obj> {
  return (await api.getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: ns, plural, name })) as Obj;
}

/** The apiserver's message for a rejected request (fails the test when the request succeeded). */
async function rejection(request: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await request;
  } catch (err) {
    if (!(err instanceof ApiException)) throw err;
    const body: unknown = typeof err.body === "string" ? JSON.parse(err.body) : err.body;
    return { code: err.code, message: String((body as { message?: unknown }).message) };
  }
  throw new Error("the apiserver accepted an object that violates the schema");
}

describe("objects holding every field of the examples round-trip through the apiserver", () => {
  it("stores an ApplicationSet with every generator kind and returns its spec unchanged", async () => {
    const body = fixtureIn(FIXTURES.applicationSetAllGenerators);
    await create("applicationsets", body);
    const read = await get("applicationsets", nameOf(body));
    expect(read["spec"]).toEqual(body["spec"]);
    expect((read["metadata"] as Obj)["labels"]).toEqual((body["metadata"] as Obj)["labels"]);
    expect(parseApplicationSet(read).ok).toBe(true);
  });

  it("ignores ApplicationSet status on create and stores it through the /status subresource", async () => {
    const body = fixtureIn(FIXTURES.applicationSetRollingSync);
    const created = await create("applicationsets", body);
    expect(created["status"]).toBeUndefined();
    await api.replaceNamespacedCustomObjectStatus({
      group: GROUP,
      version: VERSION,
      namespace: ns,
      plural: "applicationsets",
      name: nameOf(body),
      body: { ...created, status: body["status"] },
      fieldValidation: "Strict",
    });
    const read = await get("applicationsets", nameOf(body));
    expect(read["spec"]).toEqual(body["spec"]);
    expect(read["status"]).toEqual(body["status"]);
    expect(parseApplicationSet(read).ok).toBe(true);
  });

  it("stores an Application with its operation and status through the main resource", async () => {
    const body = fixtureIn(FIXTURES.applicationWithStatus);
    await create("applications", body);
    const read = await get("applications", nameOf(body));
    expect(read["spec"]).toEqual(body["spec"]);
    expect(read["operation"]).toEqual(body["operation"]);
    expect(read["status"]).toEqual(body["status"]);
    expect(parseApplication(read).ok).toBe(true);
  });

  it("stores an AppProject and returns its spec unchanged", async () => {
    const body = fixtureIn(FIXTURES.appProject);
    await create("appprojects", body);
    const read = await get("appprojects", nameOf(body));
    expect(read["spec"]).toEqual(body["spec"]);
    expect(parseAppProject(read).ok).toBe(true);
  });
});

/** Applies `mutate` to a copy of a fixture. */
function broken(file: string, name: string, mutate: (obj: Obj & { spec: Obj }) => void): Obj {
  const obj = fixtureIn(file, name) as Obj & { spec: Obj };
  mutate(obj);
  return obj;
}

describe("objects violating the schema are rejected by the apiserver", () => {
  it.each([
    {
      name: "an unknown applicationsSync policy",
      plural: "applicationsets",
      body: () =>
        broken(FIXTURES.applicationSetRollingSync, "bogus-policy", (o) => {
          o.spec["syncPolicy"] = { applicationsSync: "bogus" };
        }),
      expected:
        'spec.syncPolicy.applicationsSync: Unsupported value: "bogus": supported values: "create-only", "create-update", "create-delete", "sync"',
    },
    {
      name: "an ApplicationSet without spec.template",
      plural: "applicationsets",
      body: () =>
        broken(FIXTURES.applicationSetRollingSync, "no-template", (o) => {
          delete o.spec["template"];
        }),
      expected: "spec.template: Required value",
    },
    {
      name: "a template without spec.project",
      plural: "applicationsets",
      body: () =>
        broken(FIXTURES.applicationSetRollingSync, "no-project", (o) => {
          delete ((o.spec["template"] as Obj)["spec"] as Obj)["project"];
        }),
      expected: "spec.template.spec.project: Required value",
    },
    {
      name: "a generator template without metadata",
      plural: "applicationsets",
      body: () =>
        broken(FIXTURES.applicationSetRollingSync, "no-generator-meta", (o) => {
          o.spec["generators"] = [{ list: { elements: [], template: { spec: { project: "p", destination: {} } } } }];
        }),
      expected: "spec.generators[0].list.template.metadata: Required value",
    },
    {
      name: "a boolean maxUpdate",
      plural: "applicationsets",
      body: () =>
        broken(FIXTURES.applicationSetRollingSync, "bool-max-update", (o) => {
          o.spec["strategy"] = { type: "RollingSync", rollingSync: { steps: [{ maxUpdate: true }] } };
        }),
      expected: "spec.strategy.rollingSync.steps[0].maxUpdate",
    },
    {
      name: "an Application without spec.destination",
      plural: "applications",
      body: () =>
        broken(FIXTURES.applicationWithStatus, "no-destination", (o) => {
          delete o.spec["destination"];
        }),
      expected: "spec.destination: Required value",
    },
    {
      name: "an AppProject whitelist entry without kind",
      plural: "appprojects",
      body: () =>
        broken(FIXTURES.appProject, "no-kind", (o) => {
          o.spec["clusterResourceWhitelist"] = [{ group: "" }];
        }),
      expected: "spec.clusterResourceWhitelist[0].kind: Required value",
    },
  ])("rejects $name with a message naming the field", async ({ plural, body, expected }) => {
    const { code, message } = await rejection(create(plural, body()));
    expect(code).toBe(422);
    expect(message).toContain(expected);
  });

  it("rejects a field the schema does not declare when validation is strict", async () => {
    const body = broken(FIXTURES.applicationSetRollingSync, "unknown-field", (o) => {
      o.spec["strategy"] = { type: "RollingSync", typo: true };
    });
    const { message } = await rejection(create("applicationsets", body));
    expect(message).toContain('unknown field "spec.strategy.typo"');
  });
});
