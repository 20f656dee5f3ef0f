/**
 * The kustomize subset the unit tests render deploy/ with (test/unit/deploy/kustomize.ts) agrees with
 * the real kustomize (the one Argo CD v3.6 ships): every kustomization a single-file bundle is
 * rendered from builds to the same objects, and an overlay that moves the cluster-wide install to
 * another namespace moves the ClusterRoleBinding's subject with it; the sharding component
 * (deploy/sharding) added to an install turns sharding on, on three replicas, with its Role bound in
 * the install's namespace.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { promisify } from "node:util";
import { parseAllDocuments } from "yaml";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT, manifestId, renderKustomization, type Manifest } from "../../unit/deploy/kustomize.js";
import { renderToolsDir } from "../../support/render-tools.js";

const exec = promisify(execFile);
const overlays = mkdtempSync(join(tmpdir(), "appset-overlay-"));

afterAll(() => rmSync(overlays, { recursive: true, force: true }));

async function kustomizeBuild(dir: string): Promise<Manifest[]> {
  const { stdout } = await exec(join(renderToolsDir(), "kustomize"), ["build", "--load-restrictor", "LoadRestrictionsNone", dir], {
    maxBuffer: 64 * 1024 * 1024,
  });
  return parseAllDocuments(stdout).flatMap((d) => (d.toJS() as Manifest | null) ?? []);
}

const byId = (objs: readonly Manifest[]): Manifest[] => [...objs].sort((a, b) => manifestId(a).localeCompare(manifestId(b)));

describe("the real kustomize", () => {
  it.each(["install", "install-cluster-wide", "install-with-sync-engine", "install-with-sync-engine-namespaced", "beside-argocd"])(
    "builds deploy/%s to the objects of its committed bundle",
    async (dir) => {
      expect(byId(await kustomizeBuild(join(REPO_ROOT, "deploy", dir)))).toEqual(byId(renderKustomization(join("deploy", dir))));
    },
    60_000,
  );

  it("binds the ClusterRole to the ServiceAccount in an overlay's namespace", async () => {
    writeFileSync(
      join(overlays, "kustomization.yaml"),
      `namespace: team-x\nresources:\n  - ${relative(overlays, join(REPO_ROOT, "deploy", "install-cluster-wide"))}\n  - ${relative(overlays, join(REPO_ROOT, "deploy", "sync-engine"))}\n`,
    );
    const objects = await kustomizeBuild(overlays);
    for (const kind of ["RoleBinding", "ClusterRoleBinding"]) {
      for (const binding of objects.filter((o) => o.kind === kind)) {
        const subjects = binding["subjects"] as Array<{ kind: string; namespace?: string }>;
        expect(
          subjects.map((s) => s.namespace),
          manifestId(binding),
        ).toEqual(subjects.map(() => "team-x"));
      }
    }
    expect(objects.filter((o) => o.kind === "ClusterRoleBinding")).toHaveLength(2);
  }, 60_000);

  it("adds the sharding component to an install: the flag on, three replicas, the Leases' Role bound in its namespace", async () => {
    const dir = join(overlays, "sharded");
    mkdirSync(dir, { recursive: true });
    const rel = (d: string): string => relative(dir, join(REPO_ROOT, "deploy", d));
    writeFileSync(
      join(dir, "kustomization.yaml"),
      `namespace: team-x\nresources:\n  - ${rel("install")}\ncomponents:\n  - ${rel("sharding")}\n`,
    );
    const objects = await kustomizeBuild(dir);
    const install = renderKustomization(join("deploy", "install"));
    const added = objects.filter(
      (o) => o.kind !== "Namespace" && !install.some((i) => i.kind === o.kind && i.metadata.name === o.metadata.name),
    );
    expect(added.map((o) => `${o.kind}/${o.metadata.name}`).sort()).toEqual([
      "Role/argocd-applicationset-controller-shards",
      "RoleBinding/argocd-applicationset-controller-shards",
    ]);
    for (const o of added) expect(o.metadata.namespace).toBe("team-x");
    expect((added.find((o) => o.kind === "RoleBinding")!["subjects"] as Array<{ namespace: string }>)[0]!.namespace).toBe("team-x");
    const deployment = objects.find((o) => o.kind === "Deployment" && o.metadata.name === "argocd-applicationset-controller")!;
    const spec = deployment["spec"] as {
      replicas: number;
      template: { spec: { containers: Array<{ env: Array<Record<string, unknown>> }> } };
    };
    expect(spec.replicas).toBe(3);
    const env = spec.template.spec.containers[0]!.env;
    expect(env.filter((e) => e["name"] === "ARGOCD_APPLICATIONSET_CONTROLLER_ENABLE_SHARDING")).toEqual([
      { name: "ARGOCD_APPLICATIONSET_CONTROLLER_ENABLE_SHARDING", value: "true" },
    ]);
    // Every other setting keeps its argocd-cmd-params-cm reference.
    const others = install.find((o) => o.kind === "Deployment")!;
    expect(env).toHaveLength((others["spec"] as typeof spec).template.spec.containers[0]!.env.length);
  }, 60_000);
});
