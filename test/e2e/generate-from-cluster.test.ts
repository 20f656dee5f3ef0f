/**
 * `appset generate --from-cluster` reads its inputs from a real apiserver: cluster Secrets, the
 * Cluster Decision Resource ConfigMap, and duck-typed resources of a CRD served by the cluster.
 */
import { ApiextensionsV1Api, CoreV1Api, CustomObjectsApi, type KubeConfig } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { parseAllDocuments } from "yaml";
import { writeFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateCommand } from "../../src/cli/generate.js";
import { waitFor } from "../cluster/http.js";
import { createNamespace, deleteNamespace, sharedKubeConfig } from "./support/namespace.js";

const GROUP = "decisions.appset.test";
const PLURAL = "placementdecisions";

let kc: KubeConfig;
let ns: string;
let dir: string;

beforeAll(async () => {
  kc = sharedKubeConfig();
  ns = await createNamespace(kc, "gen");
  dir = mkdtempSync(join(tmpdir(), "appset-gen-"));
  const ext = kc.makeApiClient(ApiextensionsV1Api);
  await ext
    .createCustomResourceDefinition({
      body: {
        metadata: { name: `${PLURAL}.${GROUP}` },
        spec: {
          group: GROUP,
          scope: "Namespaced",
          names: { plural: PLURAL, singular: "placementdecision", kind: "PlacementDecision" },
          versions: [
            {
              name: "v1",
              served: true,
              storage: true,
              // client-node's typed model names the field with underscores; it writes x-kubernetes-preserve-unknown-fields.
              schema: { openAPIV3Schema: { type: "object", x_kubernetes_preserve_unknown_fields: true } },
            },
          ],
        },
      },
    })
    .catch((err: unknown) => {
      if ((err as { code?: number }).code !== 409) throw err;
    });
  await waitFor("duck-typed CRD served", async () => {
    const crd = await ext.readCustomResourceDefinition({ name: `${PLURAL}.${GROUP}` });
    return crd.status?.conditions?.some((c) => c.type === "Established" && c.status === "True") ? true : undefined;
  });
});

afterAll(async () => {
  await deleteNamespace(kc, ns);
  rmSync(dir, { recursive: true, force: true });
});

async function generate(appSet: unknown): Promise<{ code: number; out: string; err: string }> {
  const file = join(dir, "appset.json");
  writeFileSync(file, JSON.stringify(appSet));
  let out = "";
  let err = "";
  process.env.KUBECONFIG = inject("kubeconfigPath");
  const code = await generateCommand(["-f", file, "--from-cluster", "--namespace", ns, "-o", "json"], {
    out: (s) => (out += s),
    err: (s) => (err += s),
    env: process.env,
  });
  return { code, out, err };
}

const appSet = (generators: unknown[]) => ({
  apiVersion: "argoproj.io/v1alpha1",
  kind: "ApplicationSet",
  metadata: { name: "demo", namespace: "team-a" },
  spec: {
    goTemplate: true,
    generators,
    template: {
      metadata: { name: "{{ .name }}-guestbook" },
      spec: {
        project: "default",
        source: { repoURL: "https://example.test/repo.git", path: "guestbook" },
        destination: { server: "{{ .server }}" },
      },
    },
  },
});

describe("appset generate --from-cluster", () => {
  it("reads cluster Secrets, a decision ConfigMap and duck-typed resources from the apiserver", async () => {
    const core = kc.makeApiClient(CoreV1Api);
    for (const [name, server] of [
      ["staging", "https://staging.example.test"],
      ["prod", "https://prod.example.test"],
    ]) {
      await core.createNamespacedSecret({
        namespace: ns,
        body: {
          metadata: { name: `cluster-${name}`, labels: { "argocd.argoproj.io/secret-type": "cluster" } },
          stringData: { name: name!, server: server!, config: "{}" },
        },
      });
    }
    await core.createNamespacedConfigMap({
      namespace: ns,
      body: {
        metadata: { name: "placement" },
        data: { apiVersion: `${GROUP}/v1`, kind: PLURAL, statusListKey: "decisions", matchKey: "clusterName" },
      },
    });
    await kc.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
      group: GROUP,
      version: "v1",
      namespace: ns,
      plural: PLURAL,
      body: {
        apiVersion: `${GROUP}/v1`,
        kind: "PlacementDecision",
        metadata: { name: "choice", labels: { app: "guestbook" } },
        status: { decisions: [{ clusterName: "prod", reason: "picked" }, { clusterName: "nowhere" }] },
      },
    });

    const clusters = await generate(appSet([{ clusters: {} }]));
    expect(clusters.err).toBe("");
    expect(clusters.code).toBe(0);
    const names = (JSON.parse(clusters.out) as { metadata: { name: string; namespace: string } }[]).map((a) => a.metadata);
    // Applications live in the ApplicationSet's namespace; --namespace is where the inputs are read.
    expect(names.map((m) => [m.name, m.namespace])).toEqual([
      ["in-cluster-guestbook", "team-a"],
      ["prod-guestbook", "team-a"],
      ["staging-guestbook", "team-a"],
    ]);

    const cdr = await generate(
      appSet([{ clusterDecisionResource: { configMapRef: "placement", labelSelector: { matchLabels: { app: "guestbook" } } } }]),
    );
    expect(cdr.err).toBe("");
    const apps = JSON.parse(cdr.out) as { metadata: { name: string }; spec: { destination: { server: string } } }[];
    expect(apps.map((a) => [a.metadata.name, a.spec.destination.server])).toEqual([["prod-guestbook", "https://prod.example.test"]]);
  });

  it("fails with the spec's error, and no output, when the decision resources do not exist", async () => {
    const core = kc.makeApiClient(CoreV1Api);
    await core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: "empty" }, data: { apiVersion: `${GROUP}/v1`, kind: PLURAL, matchKey: "clusterName" } },
    });
    const r = await generate(appSet([{ clusterDecisionResource: { configMapRef: "empty", name: "missing" } }]));
    expect(r.code).toBe(1);
    expect(r.out).toBe("");
    expect(r.err).toContain("no clusterDecisionResources found");
    expect(parseAllDocuments(r.out)).toHaveLength(0);
  });
});
