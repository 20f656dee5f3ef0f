/**
 * The sync engine's manifests (deploy/sync-engine-rbac, sync-engine, sync-engine-in-controller,
 * install-with-sync-engine, and the team install's sync-engine-namespaced) hold together without an apiserver: the install adds exactly the
 * engine's objects to the namespaced install, the engine's ClusterRole is bound to the right
 * ServiceAccount in each variant, and the engine's Deployment runs `appset sync-engine` (under the
 * image's tini: `args`, never `command`) with the
 * controller's settings, probes and lock-down, selected apart from the controller's pods.
 */
import { describe, expect, it } from "vitest";
import { dropInArgv } from "../../../src/cli/run.js";
import { dockerfile, entrypointProgram } from "./dockerfile.js";
import { manifestId, renderKustomization, type Manifest } from "./kustomize.js";

type Obj = Record<string, unknown>;
const ENGINE = "argocd-applicationset-sync-engine";
const CONTROLLER = "argocd-applicationset-controller";

const install = renderKustomization("deploy/install");
const withEngine = renderKustomization("deploy/install-with-sync-engine");
const inController = renderKustomization("deploy/sync-engine-in-controller");
const find = (objs: Manifest[], kind: string, name: string): Manifest => {
  const o = objs.find((x) => x.kind === kind && x.metadata.name === name);
  if (o === undefined) throw new Error(`no ${kind} ${name}`);
  return o;
};
const podSpec = (d: Manifest): { metadata: { labels: Record<string, string> }; spec: Obj } =>
  (d["spec"] as { template: { metadata: { labels: Record<string, string> }; spec: Obj } }).template;
const containerOf = (d: Manifest): Obj => (podSpec(d).spec["containers"] as Obj[])[0]!;

describe("the install with the sync engine", () => {
  it("is the namespaced install plus exactly the engine's objects", () => {
    expect(withEngine.map(manifestId)).toEqual([
      ...install.map(manifestId),
      `ClusterRole/${ENGINE}`,
      `ServiceAccount/argocd/${ENGINE}`,
      `Deployment/argocd/${ENGINE}`,
      `Service/argocd/${ENGINE}-metrics`,
      `ClusterRoleBinding/${ENGINE}`,
    ]);
  });

  it("for a team install, reads everywhere but may write only where a RoleBinding allows", () => {
    const team = renderKustomization("deploy/install-with-sync-engine-namespaced");
    expect(team.map(manifestId)).toEqual([
      ...install.map(manifestId),
      `ServiceAccount/argocd/${ENGINE}`,
      `Deployment/argocd/${ENGINE}`,
      `Service/argocd/${ENGINE}-metrics`,
      `ClusterRole/${ENGINE}-read`,
      `ClusterRoleBinding/${ENGINE}-read`,
      `ClusterRole/${ENGINE}-write`,
      `RoleBinding/argocd/${ENGINE}`,
    ]);
    expect(find(team, "ClusterRole", `${ENGINE}-read`)["rules"]).toContainEqual({
      apiGroups: ["*"],
      resources: ["*"],
      verbs: ["get", "list", "watch"],
    });
    // The write role is bound in the install's namespace only: no ClusterRoleBinding grants it.
    const bindings = team.filter((o) => o.kind === "ClusterRoleBinding" || o.kind === "RoleBinding");
    const writes = bindings.filter((b) => (b["roleRef"] as { name: string }).name === `${ENGINE}-write`);
    expect(writes.map(manifestId)).toEqual([`RoleBinding/argocd/${ENGINE}`]);
    expect(writes[0]!["subjects"]).toEqual([{ kind: "ServiceAccount", name: ENGINE, namespace: "argocd" }]);
    // The same workload as the install with Argo CD's rights.
    expect(find(team, "Deployment", ENGINE)).toEqual(find(withEngine, "Deployment", ENGINE));
  });

  it.each([
    { name: "the stand-alone engine binds it to its own ServiceAccount", objects: withEngine, binding: ENGINE, subject: ENGINE },
    {
      name: "the engine inside the controller binds it to the controller's ServiceAccount",
      objects: inController,
      binding: `${CONTROLLER}-sync-engine`,
      subject: CONTROLLER,
    },
  ])("grants the engine's ClusterRole: $name", ({ objects, binding, subject }) => {
    const b = find(objects, "ClusterRoleBinding", binding);
    expect(b["roleRef"]).toEqual({ apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: ENGINE });
    expect(b["subjects"]).toEqual([{ kind: "ServiceAccount", name: subject, namespace: "argocd" }]);
  });

  it("lets the engine apply any kind anywhere, as Argo CD's application controller may", () => {
    expect(find(withEngine, "ClusterRole", ENGINE)["rules"]).toContainEqual({ apiGroups: ["*"], resources: ["*"], verbs: ["*"] });
  });

  it("gives the controller's own objects no new rights", () => {
    const controllerIds = install.map(manifestId);
    for (const o of withEngine.filter((x) => controllerIds.includes(manifestId(x)))) {
      expect(o).toEqual(install.find((x) => manifestId(x) === manifestId(o)));
    }
  });
});

describe("the sync engine's Deployment", () => {
  const engine = find(withEngine, "Deployment", ENGINE);
  const controller = find(install, "Deployment", CONTROLLER);

  it("runs `appset sync-engine` under the image's tini, with its own ServiceAccount", () => {
    const container = containerOf(engine);
    expect(container["command"]).toBeUndefined();
    const [program, ...entry] = entrypointProgram(dockerfile().at(-1)!);
    expect(dropInArgv(program!, [...entry, ...(container["args"] as string[])])).toEqual(["sync-engine"]);
    expect(podSpec(engine).spec["serviceAccountName"]).toBe(ENGINE);
  });

  it.each(["env", "readinessProbe", "livenessProbe", "securityContext", "volumeMounts", "image"])("takes the controller's %s", (field) => {
    expect(containerOf(engine)[field]).toEqual(containerOf(controller)[field]);
  });

  it("serves metrics and probes but no webhook", () => {
    expect((containerOf(engine)["ports"] as Array<{ name: string }>).map((p) => p.name)).toEqual(["metrics", "probe"]);
  });

  it("selects pods the controller's Services do not, and its metrics Service selects them", () => {
    const labels = podSpec(engine).metadata.labels;
    for (const s of withEngine.filter((o) => o.kind === "Service")) {
      const selector = (s["spec"] as { selector: Record<string, string> }).selector;
      const selects = Object.entries(selector).every(([k, v]) => labels[k] === v);
      expect(selects, s.metadata.name).toBe(s.metadata.name === `${ENGINE}-metrics`);
    }
  });
});
