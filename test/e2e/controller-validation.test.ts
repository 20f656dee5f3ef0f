/**
 * Validation of generated Applications on the real control plane (docs/controller.md#validation):
 * each invalid Application gets Argo CD's message verbatim in `ErrorOccurred` /
 * `ResourcesUpToDate`, with " (and N more)" when several fail, and is not created, while the valid
 * ones are. An existing Application without an owner is adopted; one controlled by another owner is
 * an `UpdateApplicationError` and is left as it is.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resources, type KubeApiClient, type KubeObject } from "../../src/kube/index.js";
import {
  applications,
  controllerNamespace,
  eventually,
  listAppSet,
  sharedClient,
  startController,
  type RunningController,
} from "./support/controller.js";
import { waitForConditions } from "./support/controller-wait.js";

const GENERATED = ["ParametersGenerated", "True", "ParametersGenerated", "All parameters have been generated successfully"];

let client: KubeApiClient;
let ns = "";
let run: RunningController;

beforeAll(async () => {
  client = sharedClient();
  ns = await controllerNamespace(client, "ctl-valid");
  for (const [name, server] of [
    ["twin-1", "https://twin-1.example.com"],
    ["twin-2", "https://twin-2.example.com"],
  ] as const) {
    await client.create(resources.Secrets, {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name, namespace: ns, labels: { "argocd.argoproj.io/secret-type": "cluster" } },
      stringData: { name: "twin", server },
    });
  }
  run = await startController({ namespace: ns });
});

afterAll(async () => {
  await run.stop();
  await client.delete(resources.Namespaces, { name: ns }).catch(() => undefined);
  await client.transport.close();
});

/** An ApplicationSet `name` whose List elements set the Application name and destination. */
function appSet(name: string, elements: Array<{ app: string; destination: Record<string, string> }>): KubeObject {
  const set = listAppSet(name, ns, []);
  const spec = set["spec"] as Record<string, unknown>;
  spec["generators"] = [{ list: { elements: elements.map((e) => ({ app: e.app, ...e.destination })) } }];
  const keys = [...new Set(elements.flatMap((e) => Object.keys(e.destination)))];
  const destination = Object.fromEntries(keys.map((k) => [k, `{{${k}}}`]));
  spec["template"] = {
    metadata: { name: "{{app}}" },
    spec: {
      project: "default",
      source: { repoURL: "https://example.com/repo", path: "p" },
      destination: { ...destination, namespace: "x" },
    },
  };
  return set;
}

const IN_CLUSTER = { server: "https://kubernetes.default.svc" };
const invalid = (m: string): string => `application destination spec is invalid: ${m}`;

describe("validation of generated Applications", () => {
  it.each([
    {
      name: "a duplicate name excludes every Application of that name",
      set: "dup",
      elements: [
        { app: "dup-x", destination: IN_CLUSTER },
        { app: "dup-x", destination: IN_CLUSTER },
        { app: "dup-ok", destination: IN_CLUSTER },
      ],
      message: "ApplicationSet dup contains applications with duplicate name: dup-x",
      created: ["dup-ok"],
    },
    {
      name: "an empty name",
      set: "noname",
      elements: [
        { app: "", destination: IN_CLUSTER },
        { app: "noname-ok", destination: IN_CLUSTER },
      ],
      message:
        "ApplicationSet noname contains an application with no name; a name must be set in the template's metadata.name or via a templatePatch (generateName is not supported)",
      created: ["noname-ok"],
    },
    {
      name: "a destination with both name and server",
      set: "both",
      elements: [{ app: "both-x", destination: { name: "in-cluster", server: "https://kubernetes.default.svc" } }],
      message: invalid("application destination can't have both name and server defined: in-cluster https://kubernetes.default.svc"),
      created: [],
    },
    {
      name: "a destination with neither name nor server",
      set: "neither",
      elements: [{ app: "neither-x", destination: {} }],
      message: invalid("Destination server missing from app spec"),
      created: [],
    },
    {
      name: "an unknown cluster server",
      set: "server",
      elements: [{ app: "server-x", destination: { server: "https://nowhere.example.com" } }],
      message: invalid(
        'error getting cluster by server "https://nowhere.example.com": rpc error: code = NotFound desc = cluster "https://nowhere.example.com" not found',
      ),
      created: [],
    },
    {
      name: "a cluster name shared by two cluster Secrets",
      set: "twins",
      elements: [{ app: "twins-x", destination: { name: "twin" } }],
      message: invalid("there are 2 clusters with the same name: [https://twin-1.example.com https://twin-2.example.com]"),
      created: [],
    },
    {
      name: "several failures report the last in name order, and how many more",
      set: "many",
      elements: [
        { app: "many-a", destination: { name: "nowhere-a" } },
        { app: "many-b", destination: { name: "nowhere-b" } },
        { app: "many-ok", destination: { name: "in-cluster" } },
      ],
      message: `${invalid("there are no clusters with this name: nowhere-b")} (and 1 more)`,
      created: ["many-ok"],
    },
  ])("$name gets the spec's message, and only the valid Applications are created", async ({ set, elements, message, created }) => {
    await client.create(resources.ApplicationSets, appSet(set, elements));
    await waitForConditions(client, ns, set, [
      ["ErrorOccurred", "True", "ApplicationValidationError", message],
      GENERATED,
      ["ResourcesUpToDate", "False", "ErrorOccurred", message],
    ]);
    const prefix = `${set}-`;
    const names = async (): Promise<string[]> => [...(await applications(client, ns)).keys()].filter((n) => n.startsWith(prefix)).sort();
    await eventually("the valid Applications", async () => (JSON.stringify(await names()) === JSON.stringify(created) ? true : undefined));
  });

  it("adopts an Application with no owner, and refuses one that another controller owns", async () => {
    const cm = await client.create<KubeObject>(resources.ConfigMaps, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "owner", namespace: ns },
    });
    const existing = (name: string, owners: unknown[]): KubeObject => ({
      apiVersion: "argoproj.io/v1alpha1",
      kind: "Application",
      metadata: { name, namespace: ns, ownerReferences: owners },
      spec: {
        project: "default",
        source: { repoURL: "https://example.com/old", path: "old" },
        destination: { ...IN_CLUSTER, namespace: "x" },
      },
    });
    await client.create(resources.Applications, existing("adopt-me", []));
    const foreign = [{ apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: cm.metadata?.uid, controller: true }];
    await client.create(resources.Applications, existing("taken", foreign));
    await client.create(
      resources.ApplicationSets,
      appSet("adopt", [
        { app: "adopt-me", destination: IN_CLUSTER },
        { app: "taken", destination: IN_CLUSTER },
      ]),
    );
    const message = `error while wrapping using MutateFn: Object ${ns}/taken is already owned by another ConfigMap controller owner`;
    await waitForConditions(client, ns, "adopt", [
      ["ErrorOccurred", "True", "UpdateApplicationError", message],
      GENERATED,
      ["ResourcesUpToDate", "False", "ErrorOccurred", message],
    ]);
    const apps = await applications(client, ns);
    expect(apps.get("adopt-me")?.metadata.ownerReferences).toEqual([
      expect.objectContaining({ kind: "ApplicationSet", name: "adopt", controller: true }),
    ]);
    expect(apps.get("adopt-me")?.spec.source?.repoURL).toBe("https://example.com/repo");
    expect(apps.get("taken")?.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: "ConfigMap", name: "owner" })]);
    expect(apps.get("taken")?.spec.source?.repoURL).toBe("https://example.com/old");
  });
});
