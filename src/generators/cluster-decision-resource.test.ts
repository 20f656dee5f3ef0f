import { describe, expect, it } from "vitest";
import { appSet, clusterSecret, context } from "../../test/unit/generators/builders.js";
import type { KubeObject } from "../kube/index.js";
import { clusterDecisionResourceGenerator as cdr } from "./cluster-decision-resource.js";
import { portsFromObjects } from "./object-ports.js";

const configMap = (data: Record<string, string>): KubeObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "ocm-placement", namespace: "argocd" },
  data,
});
const placement = (name: string, labels: Record<string, string>, decisions: Record<string, unknown>[] | undefined): KubeObject => ({
  apiVersion: "cluster.open-cluster-management.io/v1beta1",
  kind: "PlacementDecision",
  metadata: { name, namespace: "argocd", labels },
  ...(decisions === undefined ? {} : { status: { decisions } }),
});
const OCM = {
  apiVersion: "cluster.open-cluster-management.io/v1beta1",
  kind: "placementdecisions",
  statusListKey: "decisions",
  matchKey: "clusterName",
};
const objects = (cm: Record<string, string>, ...rest: KubeObject[]): KubeObject[] => [
  configMap(cm),
  clusterSecret("cluster-a", "https://a.example.com"),
  ...rest,
];

describe("the Cluster Decision Resource generator", () => {
  it.each([
    // name; objects; generator spec; mode; expected parameter sets
    {
      name: "each decision naming a known cluster gives name, server, its keys and verbatim values",
      objects: objects(OCM, placement("p", { app: "x" }, [{ clusterName: "cluster-a", reason: "fit" }, { clusterName: "unknown" }])),
      spec: { configMapRef: "ocm-placement", labelSelector: { matchLabels: { app: "x" } }, values: { v: "{{name}}" } },
      goTemplate: false,
      want: [{ name: "cluster-a", server: "https://a.example.com", clusterName: "cluster-a", reason: "fit", "values.v": "{{name}}" }],
    },
    {
      name: "the synthetic in-cluster is a known cluster, selected here by resource name",
      objects: objects(OCM, placement("p", {}, [{ clusterName: "in-cluster" }])),
      spec: { configMapRef: "ocm-placement", name: "p" },
      goTemplate: true,
      want: [{ name: "in-cluster", server: "https://kubernetes.default.svc", clusterName: "in-cluster", values: {} }],
    },
    {
      name: "statusListKey defaults to clusters",
      objects: objects(
        { ...OCM, statusListKey: "" },
        { ...placement("p", {}, undefined), status: { clusters: [{ clusterName: "cluster-a" }] } },
      ),
      spec: { configMapRef: "ocm-placement", name: "p" },
      goTemplate: false,
      want: [expect.objectContaining({ name: "cluster-a" })],
    },
    {
      name: "an empty matchKey yields nothing and no error",
      objects: objects({ ...OCM, matchKey: "" }),
      spec: { configMapRef: "ocm-placement", name: "p" },
      goTemplate: false,
      want: [],
    },
    {
      name: "a resource without status yields nothing",
      objects: objects(OCM, placement("p", {}, undefined)),
      spec: { configMapRef: "ocm-placement", name: "p" },
      goTemplate: false,
      want: [],
    },
  ])("$name", async ({ objects: objs, spec, goTemplate, want }) => {
    const got = await cdr.generate(spec, appSet([], { goTemplate }), context(portsFromObjects(objs, "argocd")));
    expect(got).toEqual(want);
  });

  it.each([
    {
      name: "a missing ConfigMap is an error",
      objs: [],
      spec: { configMapRef: "ocm-placement", name: "p" },
      error: 'error reading configMapRef: configmaps "ocm-placement" not found',
    },
    {
      name: "a core-group apiVersion is refused",
      objs: objects({ ...OCM, apiVersion: "v1" }),
      spec: { configMapRef: "ocm-placement", name: "p" },
      error: "there is a problem with the apiVersion, kind or resourceName provided",
    },
    {
      name: "both name and labelSelector are refused",
      objs: objects(OCM),
      spec: { configMapRef: "ocm-placement", name: "p", labelSelector: { matchLabels: { a: "b" } } },
      error: "there is a problem with the definition of the ClusterDecisionResource generator",
    },
    {
      name: "neither name nor labelSelector is refused",
      objs: objects(OCM),
      spec: { configMapRef: "ocm-placement" },
      error: "there is a problem with the definition of the ClusterDecisionResource generator",
    },
    {
      name: "no matching resource is an error, not an empty list",
      objs: objects(OCM),
      spec: { configMapRef: "ocm-placement", name: "p" },
      error: "no clusterDecisionResources found",
    },
  ])("$name", async ({ objs, spec, error }) => {
    await expect(cdr.generate(spec, appSet([]), context(portsFromObjects(objs, "argocd")))).rejects.toMatchObject({
      message: error,
      reason: "ApplicationGenerationFromParamsError",
    });
  });

  it("wraps a failed resource list", async () => {
    const ports = { ...portsFromObjects(objects(OCM), "argocd"), resources: { list: () => Promise.reject(new Error("forbidden")) } };
    await expect(cdr.generate({ configMapRef: "ocm-placement", name: "p" }, appSet([]), context(ports))).rejects.toThrow(
      "failed to get dynamic resources: forbidden",
    );
  });
});
