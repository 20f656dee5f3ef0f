/**
 * The sync executor on the real control plane when a CRD's kind reaches discovery late: a custom
 * resource of a CRD the executor just applied is looked up again until its kind is served (here the
 * discovery answers NotFound for its first lookups, as a loaded apiserver can right after the CRD is
 * Established), while a kind of a group no CRD of this sync created fails at once with kubectl's
 * words.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { Discovery, KubeApiClient, KubeApiError, KubeReason, type KubeObject, type ResourceDescriptor } from "../../src/kube/index.js";
import { SyncExecutor } from "../../src/syncwaves/executor.js";
import type { SyncTask } from "../../src/syncwaves/types.js";
import { createNamespace, deleteNamespace, sharedKubeConfig } from "./support/namespace.js";

const kc = sharedKubeConfig();
const client = KubeApiClient.fromConfig({ kind: "file", path: inject("kubeconfigPath") });
const discovery = new Discovery(client.transport);
const group = `lag${randomBytes(3).toString("hex")}.example.com`;
let ns = "";

beforeAll(async () => {
  ns = await createNamespace(kc, "sw-newkind");
});

afterAll(async () => {
  const crds: ResourceDescriptor = {
    group: "apiextensions.k8s.io",
    version: "v1",
    plural: "customresourcedefinitions",
    kind: "CustomResourceDefinition",
    namespaced: false,
  };
  await client.delete(crds, { name: `widgets.${group}` }).catch(() => undefined);
  await deleteNamespace(kc, ns);
  await client.transport.close();
});

const task = (target: KubeObject): SyncTask => ({ phase: "Sync", target, hook: false, state: {} });

describe("SyncExecutor with a kind that reaches discovery late", () => {
  it("applies a CR of the CRD it just applied once discovery serves the kind, and fails an unrelated unknown kind at once", async () => {
    let refused = 0;
    const lagging = async (o: KubeObject): Promise<ResourceDescriptor> => {
      if (o.kind === "Widget" && refused < 3) {
        refused++;
        throw new KubeApiError({ status: 404, reason: KubeReason.NotFound, message: `Widget.${group} "" not found` });
      }
      return discovery.resourceFor(o.apiVersion ?? "", o.kind ?? "");
    };
    const exec = new SyncExecutor({ client, resolve: lagging });
    const options = { dryRun: false, propagation: "Foreground" as const };
    const crd = await exec.apply(
      task({
        apiVersion: "apiextensions.k8s.io/v1",
        kind: "CustomResourceDefinition",
        metadata: { name: `widgets.${group}` },
        spec: {
          group,
          names: { kind: "Widget", plural: "widgets", singular: "widget" },
          scope: "Namespaced",
          versions: [
            {
              name: "v1",
              served: true,
              storage: true,
              schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
            },
          ],
        },
      }),
      options,
    );
    const cr = await exec.apply(
      task({ apiVersion: `${group}/v1`, kind: "Widget", metadata: { name: "w", namespace: ns }, spec: { size: 1 } }),
      options,
    );
    const other = await exec.apply(
      task({ apiVersion: "nowhere.example.com/v1", kind: "Gadget", metadata: { name: "g", namespace: ns } }),
      options,
    );
    expect({ crd: crd.state.status, cr: cr.state.status, refused, other: other.state }).toEqual({
      crd: "Synced",
      cr: "Synced",
      refused: 3,
      other: {
        status: "SyncFailed",
        hookPhase: "Failed",
        message: `resource mapping not found for name: "g" namespace: "${ns}": no matches for kind "Gadget" in version "nowhere.example.com/v1"\nensure CRDs are installed first`,
      },
    });
  });
});
