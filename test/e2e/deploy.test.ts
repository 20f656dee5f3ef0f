/**
 * The manifests of deploy/ on a real apiserver: each install passes a server-side dry run that
 * persists nothing, then applies for real, applies again without changing anything, and the
 * controller's Deployment rolls out (pods admitted with the ServiceAccount, scheduled, available).
 * Then every command and manifest of docs/install.md runs, in order, as a reader would run them.
 * Each install gets a namespace of its own in place of `argocd`, and suffixed cluster-scoped names.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { KubeApiClient, isNotFound, resources } from "../../src/kube/index.js";
import { codeBlocks, shellCommands, type ShellCommand } from "../unit/deploy/docs.js";
import { readRepoFile } from "../unit/deploy/generated.js";
import { Applier, kubectl, placement, waitForRollout, type Placement } from "./support/kubectl.js";
import { isNamespaced, renderKustomization, type Manifest } from "../unit/deploy/kustomize.js";

const NAME = "argocd-applicationset-controller";
const run = randomBytes(3).toString("hex");
let admin: KubeApiClient;
let applier: Applier;
const namespaces: string[] = [];
const clusterObjects: Manifest[] = [];

beforeAll(() => {
  admin = KubeApiClient.fromConfig({ kind: "file", path: inject("kubeconfigPath") });
  applier = new Applier(admin);
});

afterAll(async () => {
  for (const obj of clusterObjects) {
    try {
      await applier.delete([obj]);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
  for (const name of namespaces) await admin.delete(resources.Namespaces, { name }).catch(() => undefined);
  await admin.transport.close();
});

/** A namespace name for one install, remembered for clean-up, and how objects are placed there. */
function newInstall(prefix: string): { ns: string; place: Placement } {
  const ns = `${prefix}-${run}`;
  namespaces.push(ns);
  return { ns, place: placement(ns, run) };
}

function remember(objects: readonly Manifest[]): void {
  clusterObjects.push(...objects.filter((o) => o.kind === "ClusterRole" || o.kind === "ClusterRoleBinding"));
}

async function existing(objects: readonly Manifest[]): Promise<string[]> {
  const out: string[] = [];
  for (const o of objects) if (await applier.exists(o)) out.push(`${o.kind}/${o.metadata.name}`);
  return out;
}

/**
 * What an apply that changes nothing leaves as it was: the resourceVersion, except for objects whose
 * status a controller keeps writing (a Deployment's rollout moves its resourceVersion on its own):
 * for those the spec's generation, the labels and the annotations other than the controller's own.
 */
async function resourceVersions(objects: readonly Manifest[]): Promise<string[]> {
  return Promise.all(
    objects.map(async (o) => {
      const live = await admin.get(await applier.resourceOf(o), { namespace: o.metadata.namespace, name: o.metadata.name });
      const meta = live.metadata ?? {};
      if (live.kind !== "Deployment") return meta.resourceVersion ?? "";
      const ours = Object.entries(meta.annotations ?? {}).filter(([k]) => !k.startsWith("deployment.kubernetes.io/"));
      return JSON.stringify({ generation: meta.generation, labels: meta.labels, annotations: ours });
    }),
  );
}

describe("the installs apply", () => {
  it.each([
    { name: "the namespaced install", dir: "deploy/install", prefix: "deploy-ns", clusterRbac: 0 },
    { name: "the cluster-wide install", dir: "deploy/install-cluster-wide", prefix: "deploy-cw", clusterRbac: 2 },
  ])(
    "$name passes a server-side dry run that persists nothing, then applies, re-applies unchanged and rolls out",
    async ({ dir, prefix, clusterRbac }) => {
      const { ns, place } = newInstall(prefix);
      const objects = renderKustomization(dir).map(place.object);
      remember(objects);
      const clusterScoped = objects.filter((o) => !isNamespaced(o.kind));
      const namespaced = objects.filter((o) => isNamespaced(o.kind));
      const ours = objects.filter((o) => o.kind !== "CustomResourceDefinition");
      expect(clusterScoped.filter((o) => o.kind.startsWith("Cluster"))).toHaveLength(clusterRbac);

      // The namespaced objects can only be dry-run once their namespace exists, as with kubectl.
      await applier.apply(clusterScoped, { dryRun: true });
      expect(await existing(ours.filter((o) => !isNamespaced(o.kind)))).toEqual([]);
      await applier.apply(objects.filter((o) => o.kind === "Namespace"));
      await applier.apply(namespaced, { dryRun: true });
      expect(await existing(namespaced)).toEqual([]);

      await applier.apply(objects);
      expect(await existing(objects)).toHaveLength(objects.length);
      const before = await resourceVersions(ours);
      await applier.apply(objects);
      expect(await resourceVersions(ours)).toEqual(before);

      await waitForRollout(admin, ns, NAME);
      const binding = objects.find((o) => o.kind === "ClusterRoleBinding");
      if (binding !== undefined) expect(binding["subjects"]).toEqual([{ kind: "ServiceAccount", name: NAME, namespace: ns }]);
    },
  );
});

describe("docs/install.md", () => {
  it("runs every command and manifest of the page, in order, and the uninstall keeps the CRDs", async () => {
    const { ns, place } = newInstall("deploy-docs");
    remember(renderKustomization("deploy/cluster-rbac").map(place.object));
    const blocks = codeBlocks(readRepoFile("docs/install.md"));
    expect(blocks.map((b) => b.lang).every((l) => l === "sh" || l === "yaml")).toBe(true);
    // A YAML example is applied as the reader would: piped to kubectl apply.
    const applyStdin = (text: string): ShellCommand => ({ argv: ["kubectl", "apply", "--server-side", "-f", "-"], stdin: text });
    let commands = 0;
    for (const block of blocks) {
      for (const cmd of block.lang === "yaml" ? [applyStdin(block.text)] : shellCommands(block.text)) {
        await kubectl(applier, place, cmd, () => new Date());
        commands++;
      }
    }
    expect(commands).toBeGreaterThanOrEqual(8);
    const deployment = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: NAME, namespace: ns } };
    expect(await applier.exists(deployment)).toBe(false);
    const crds = renderKustomization("deploy/crds");
    expect(await existing(crds)).toHaveLength(crds.length);
  });
});
