import { describe, expect, it } from "vitest";
import { appSet, clusterSecret, context } from "../../test/unit/generators/builders.js";
import { clusterGenerator } from "./cluster.js";
import type { ClusterGenerator, Secret } from "../api/index.js";

const staging = clusterSecret("staging", "https://staging.example.com", {
  labels: { env: "staging" },
  annotations: { "example.com/region": "eu" },
  project: "team-a",
});
const prod = clusterSecret("prod", "https://prod.example.com", { labels: { env: "prod" } });
const local = clusterSecret("local", "https://kubernetes.default.svc");
const lister = (secrets: Secret[]) => ({ listClusterSecrets: () => Promise.resolve(secrets) });
const inCluster = { name: "in-cluster", nameNormalized: "in-cluster", server: "https://kubernetes.default.svc", project: "" };

describe("the Cluster generator", () => {
  it.each([
    // name; cluster Secrets; generator spec; template mode; expected parameter sets
    {
      name: "fasttemplate mode gives flat metadata keys and appends the local cluster",
      secrets: [staging],
      spec: {},
      goTemplate: false,
      want: [
        {
          name: "staging",
          nameNormalized: "staging",
          server: "https://staging.example.com",
          project: "team-a",
          "metadata.labels.argocd.argoproj.io/secret-type": "cluster",
          "metadata.labels.env": "staging",
          "metadata.annotations.example.com/region": "eu",
        },
        inCluster,
      ],
    },
    {
      name: "goTemplate mode gives metadata maps, present only when non-empty",
      secrets: [prod],
      spec: {},
      goTemplate: true,
      want: [
        {
          name: "prod",
          nameNormalized: "prod",
          server: "https://prod.example.com",
          project: "",
          metadata: { labels: { "argocd.argoproj.io/secret-type": "cluster", env: "prod" } },
        },
        inCluster,
      ],
    },
    {
      name: "Argo CD's and kubectl's own annotations are no parameters; goTemplate keeps the annotations key",
      secrets: [
        clusterSecret("state", "https://state.example.com", {
          labels: { env: "qa" },
          annotations: { "argocd.argoproj.io/refresh": "t", "kubectl.kubernetes.io/last-applied-configuration": "{}" },
        }),
      ],
      spec: { selector: { matchLabels: { env: "qa" } } },
      goTemplate: true,
      want: [
        expect.objectContaining({ metadata: { annotations: {}, labels: { "argocd.argoproj.io/secret-type": "cluster", env: "qa" } } }),
      ],
    },
    {
      name: "a selector filters Secrets and excludes the implicit local cluster",
      secrets: [staging, prod],
      spec: { selector: { matchLabels: { env: "prod" } } },
      goTemplate: true,
      want: [expect.objectContaining({ name: "prod" })],
    },
    {
      name: "matchExpressions are supported",
      secrets: [staging, prod],
      spec: { selector: { matchExpressions: [{ key: "env", operator: "NotIn", values: ["prod"] }] } },
      goTemplate: true,
      want: [expect.objectContaining({ name: "staging" })],
    },
    {
      name: "a Secret for the local server replaces the implicit local cluster",
      secrets: [local],
      spec: {},
      goTemplate: true,
      want: [expect.objectContaining({ name: "local", server: "https://kubernetes.default.svc" })],
    },
    {
      name: "Secrets sharing a cluster name collapse to the last one",
      secrets: [clusterSecret("dup", "https://one"), clusterSecret("dup", "https://two", { secretName: "other" })],
      spec: { selector: { matchLabels: { "argocd.argoproj.io/secret-type": "cluster" } } },
      goTemplate: true,
      want: [expect.objectContaining({ name: "dup", server: "https://two" })],
    },
    {
      name: "values are templated with the cluster's own parameters (fasttemplate)",
      secrets: [prod],
      spec: { selector: { matchLabels: { env: "prod" } }, values: { revision: "{{metadata.labels.env}}-branch", fixed: "x" } },
      goTemplate: false,
      want: [expect.objectContaining({ "values.revision": "prod-branch", "values.fixed": "x" })],
    },
    {
      name: "values are templated with the cluster's own parameters (goTemplate)",
      secrets: [prod],
      spec: { selector: { matchLabels: { env: "prod" } }, values: { revision: "{{ .name | upper }}" } },
      goTemplate: true,
      want: [expect.objectContaining({ values: { revision: "PROD" } })],
    },
    {
      name: "flatList gives one parameter set holding every cluster",
      secrets: [prod],
      spec: { flatList: true },
      goTemplate: true,
      want: [{ clusters: [expect.objectContaining({ name: "prod" }), inCluster] }],
    },
    {
      name: "flatList with no match still gives one parameter set",
      secrets: [prod],
      spec: { flatList: true, selector: { matchLabels: { env: "none" } } },
      goTemplate: true,
      want: [{ clusters: null }],
    },
    {
      name: "Secrets without the cluster label are ignored",
      secrets: [{ ...prod, metadata: { ...prod.metadata, labels: { env: "prod" } } }],
      spec: {},
      goTemplate: true,
      want: [inCluster],
    },
  ])("$name", async ({ secrets, spec, goTemplate, want }) => {
    const got = await clusterGenerator.generate(
      spec as ClusterGenerator,
      appSet([], { goTemplate }),
      context({ clusters: lister(secrets) }),
    );
    expect(got).toEqual(want);
  });

  it("fails with the spec's wrapping when the Secrets cannot be listed, never returning nothing", async () => {
    const failing = { listClusterSecrets: () => Promise.reject(new Error("connection refused")) };
    await expect(clusterGenerator.generate({}, appSet([]), context({ clusters: failing }))).rejects.toMatchObject({
      message: "error getting cluster secrets: connection refused",
      reason: "ApplicationGenerationFromParamsError",
    });
  });

  it("rejects an invalid selector operator", async () => {
    const spec = { selector: { matchExpressions: [{ key: "env", operator: "Gt", values: ["1"] }] } };
    await expect(clusterGenerator.generate(spec, appSet([]), context({ clusters: lister([]) }))).rejects.toThrow(
      /"Gt" is not a valid label selector operator/,
    );
  });
});
