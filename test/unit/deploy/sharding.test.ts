/**
 * The opt-in component for sharded replicas (deploy/sharding) holds together without kustomize: it is
 * a Component whose files are all listed, its Role grants exactly what the member Leases need in the
 * controller's namespace and is bound to the controller's ServiceAccount, and its Deployment patch
 * turns --enable-sharding on (the setting's own env variable) on three replicas. The real kustomize
 * builds it onto an install in test/integration/deploy/kustomize-build.test.ts.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { OPTIONS } from "../../../src/config/index.js";
import { readRepoFile } from "./generated.js";
import { DEPLOY_DIR, readManifests, type Manifest } from "./kustomize.js";

type Obj = Record<string, unknown>;
const DIR = join(DEPLOY_DIR, "sharding");
const kustomization = parse(readRepoFile("deploy/sharding/kustomization.yaml")) as Obj;
const one = (file: string): Manifest => readManifests(join(DIR, file))[0]!;
const SHARDING_ENV = OPTIONS.find((o) => o.key === "enableSharding")!.env;

describe("deploy/sharding", () => {
  it("is a kustomize Component listing every file of its folder", () => {
    expect(kustomization["kind"]).toBe("Component");
    const listed = [
      ...(kustomization["resources"] as string[]),
      ...(kustomization["patches"] as Array<{ path: string }>).map((p) => p.path),
    ];
    expect(listed.sort()).toEqual(
      readdirSync(DIR)
        .filter((f) => f !== "kustomization.yaml")
        .sort(),
    );
  });

  it("grants get, list, create, update and delete of Leases in the namespace, and nothing else", () => {
    const role = one("role.yaml");
    expect(role.kind).toBe("Role");
    expect(role["rules"]).toEqual([
      { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["get", "list", "create", "update", "delete"] },
    ]);
  });

  it("binds that Role to the controller's ServiceAccount", () => {
    const binding = one("rolebinding.yaml");
    expect(binding.kind).toBe("RoleBinding");
    expect(binding["roleRef"]).toEqual({ apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: one("role.yaml").metadata.name });
    expect(binding["subjects"]).toEqual([{ kind: "ServiceAccount", name: "argocd-applicationset-controller" }]);
  });

  it("turns --enable-sharding on through its env variable, on three replicas", () => {
    const patch = one("deployment-patch.yaml");
    expect(patch.metadata.name).toBe("argocd-applicationset-controller");
    const spec = patch["spec"] as { replicas: number; template: { spec: { containers: Array<{ name: string; env: Obj[] }> } } };
    expect(spec.replicas).toBe(3);
    expect(spec.template.spec.containers).toEqual([
      { name: "argocd-applicationset-controller", env: [{ name: SHARDING_ENV, value: "true", valueFrom: null }] },
    ]);
  });
});
