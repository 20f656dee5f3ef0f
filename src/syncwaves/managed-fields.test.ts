import { describe, expect, it } from "vitest";
import type { KubeObject } from "../kube/index.js";
import { withoutIgnored } from "./ignore-differences.js";
import { managedFieldSets, withoutManagedFields, type FieldSet } from "./managed-fields.js";
import { inSync } from "./compare.js";

const deployment = (replicas: number, image: string, managedFields?: unknown[]): KubeObject => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "web", namespace: "ns", labels: { app: "web", owner: "hpa" }, ...(managedFields ? { managedFields } : {}) },
  spec: {
    replicas,
    template: {
      spec: {
        containers: [
          { name: "web", image, ports: [{ containerPort: 80, protocol: "TCP" }] },
          { name: "sidecar", image: "proxy:1" },
        ],
      },
    },
  },
});

const hpaFields: FieldSet = { "f:spec": { "f:replicas": {} } };
const entry = (manager: string, fieldsV1: FieldSet, operation = "Update") => ({ manager, operation, fieldsType: "FieldsV1", fieldsV1 });

describe("managedFieldSets", () => {
  it.each([
    { name: "the listed manager's set", managers: ["kube-controller-manager"], want: [hpaFields] },
    { name: "nothing for other managers", managers: ["someone"], want: [] },
    { name: "nothing without managers", managers: [], want: [] },
  ])("gives $name", ({ managers, want }) => {
    const live = deployment(5, "web:1", [
      entry("argocd-controller", { "f:spec": { "f:template": {} } }, "Apply"),
      entry("kube-controller-manager", hpaFields),
    ]);
    expect(managedFieldSets(live, managers)).toEqual(want);
  });

  it("ignores entries without fieldsV1 and a live object without managed fields", () => {
    expect(managedFieldSets(deployment(1, "a", [{ manager: "m" }]), ["m"])).toEqual([]);
    expect(managedFieldSets(deployment(1, "a"), ["m"])).toEqual([]);
    expect(managedFieldSets(undefined, ["m"])).toEqual([]);
  });
});

describe("withoutManagedFields", () => {
  const spec = (o: KubeObject) => o["spec"] as { replicas?: number; template: { spec: { containers: Array<Record<string, unknown>> } } };

  it.each<{ name: string; set: FieldSet; check: (o: KubeObject) => unknown; want: unknown }>([
    { name: "an owned leaf field", set: hpaFields, check: (o) => spec(o).replicas, want: undefined },
    {
      name: "a field of a keyed list item",
      set: { "f:spec": { "f:template": { "f:spec": { "f:containers": { 'k:{"name":"web"}': { ".": {}, "f:image": {} } } } } } },
      check: (o) => spec(o).template.spec.containers.map((c) => c["image"]),
      want: [undefined, "proxy:1"],
    },
    {
      name: "a whole keyed list item owned as a leaf",
      set: { "f:spec": { "f:template": { "f:spec": { "f:containers": { 'k:{"name":"sidecar"}': { ".": {} } } } } } },
      check: (o) => spec(o).template.spec.containers.map((c) => c["name"]),
      want: ["web"],
    },
    {
      name: "an item keyed by two fields, one a number",
      set: {
        "f:spec": {
          "f:template": {
            "f:spec": { "f:containers": { 'k:{"name":"web"}': { "f:ports": { 'k:{"containerPort":80,"protocol":"TCP"}': {} } } } },
          },
        },
      },
      check: (o) => spec(o).template.spec.containers[0]!["ports"],
      want: [],
    },
    {
      name: "a map key under a node the manager also owns",
      set: { "f:metadata": { "f:labels": { ".": {}, "f:owner": {} } } },
      check: (o) => o.metadata?.labels,
      want: { app: "web" },
    },
    {
      name: "nothing when a key names no item",
      set: { "f:spec": { "f:template": { "f:spec": { "f:containers": { 'k:{"name":"other"}': {} } } } } },
      check: (o) => spec(o).template.spec.containers.length,
      want: 2,
    },
  ])("removes $name", ({ set, check, want }) => {
    const obj = deployment(3, "web:2");
    const out = withoutManagedFields(obj, [set]);
    expect(check(out)).toEqual(want);
    expect(spec(obj).replicas).toBe(3);
  });

  it("removes the items of a set-like list by value and by index", () => {
    const obj: KubeObject = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", finalizers: ["a", "b", "c"] } };
    expect(withoutManagedFields(obj, [{ "f:metadata": { "f:finalizers": { 'v:"b"': {} } } }]).metadata?.finalizers).toEqual(["a", "c"]);
    expect(withoutManagedFields(obj, [{ "f:metadata": { "f:finalizers": { "i:0": {} } } }]).metadata?.finalizers).toEqual(["b", "c"]);
    expect(withoutManagedFields(obj, [{ "f:metadata": { "f:finalizers": { "v:{bad": {} } } }]).metadata?.finalizers).toEqual([
      "a",
      "b",
      "c",
    ]);
  });
});

describe("ignoreDifferences with managedFieldsManagers", () => {
  const live = deployment(7, "web:1", [entry("kube-controller-manager", hpaFields)]);
  const desired = deployment(3, "web:1");
  const compare = (rules: Parameters<typeof withoutIgnored>[1], d = desired): boolean =>
    inSync(withoutIgnored(d, rules, live), withoutIgnored(live, rules, live));

  it("leaves out what the named manager owns, so an HPA's replicas do not make the Deployment OutOfSync", () => {
    expect(compare([])).toBe(false);
    expect(compare([{ group: "apps", kind: "Deployment", managedFieldsManagers: ["kube-controller-manager"] }])).toBe(true);
  });

  it("still compares the fields the manager does not own", () => {
    const rules = [{ group: "apps", kind: "Deployment", managedFieldsManagers: ["kube-controller-manager"] }];
    expect(compare(rules, deployment(3, "web:2"))).toBe(false);
  });

  it("does nothing for a rule of another kind or manager", () => {
    expect(compare([{ group: "apps", kind: "StatefulSet", managedFieldsManagers: ["kube-controller-manager"] }])).toBe(false);
    expect(compare([{ group: "apps", kind: "Deployment", managedFieldsManagers: ["someone-else"] }])).toBe(false);
  });
});
