/**
 * docs/migrate.md on a control plane with Argo CD v3.6.2's own CRDs: a namespace whose ApplicationSet
 * is reconciled by Argo CD's ApplicationSet controller (the reference binary, run as its
 * Deployment's container would be) moves to ours with the page's commands and `deploy/beside-argocd`,
 * and back. Each `kubectl scale` to zero stops the container's process and a scale up (or a
 * rollout once Argo CD's install is back) starts the process the live Deployment describes: ours
 * from the Dockerfile's ENTRYPOINT plus the container's `args` (which keep argo-helm's leading
 * `/usr/local/bin/argocd-applicationset-controller`), or Argo CD's; with the environment a kubelet
 * gives the container and the ServiceAccount's token as its only credentials. The move leaves
 * Argo CD's CRDs as they were, gives the ServiceAccount exactly our Role, and each controller in
 * turn updates the Applications the other one created in place. Then the page's chart-off path
 * (install the overlay alone, remove it) and its argo-helm values.
 */
import { randomBytes } from "node:crypto";
import { parse } from "yaml";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Application } from "../../src/api/index.js";
import { KubeApiClient, resources, type KubeObject } from "../../src/kube/index.js";
import { applications, eventually } from "../e2e/support/controller.js";
import { SUCCESS, waitForConditions } from "../e2e/support/controller-wait.js";
import { shellCommands, type CodeBlock } from "../unit/deploy/docs.js";
import { readRepoFile } from "../unit/deploy/generated.js";
import { Applier, kubectl, placement, type Placement } from "../e2e/support/kubectl.js";
import { readManifests, renderKustomization, REPO_ROOT, type Manifest } from "../unit/deploy/kustomize.js";
import { TempDirs } from "../integration/support/git-repos.js";
import {
  ARGO_PROGRAM,
  ARGOCD_IMAGE,
  ARGOCD_INSTALL_MANAGER,
  NAME,
  argoCdAppSetObjects,
  containerEnv,
  createArgoCdSettings,
  installArgoCd,
  sectionBlocks,
  startArgoCdAppSet,
  startOurs,
  tokenKubeconfig,
  type Container,
  type ContainerProcess,
} from "./support/install.js";
import { join } from "node:path";

const PAGE = "docs/migrate.md";
const OVERLAY = "deploy/beside-argocd";
const CRD_NAMES = ["applications.argoproj.io", "applicationsets.argoproj.io", "appprojects.argoproj.io"];
const run = randomBytes(3).toString("hex");
const ns = `beside-${run}`;
const helmNs = `beside-helm-${run}`;
const temp = new TempDirs();
const markdown = readRepoFile(PAGE);
let admin: KubeApiClient;
let applier: Applier;
let running: ContainerProcess | undefined;
const started: ContainerProcess[] = [];
/** The uid of each Application when it was first seen. */
const uids = new Map<string, string>();

type Deployment = Manifest & { spec: { replicas?: number; template: { spec: { serviceAccountName: string; containers: Container[] } } } };
type Crd = KubeObject & { spec: unknown };

beforeAll(async () => {
  admin = KubeApiClient.fromConfig({ kind: "file", path: inject("kubeconfigPath") });
  applier = new Applier(admin);
  for (const name of [ns, helmNs]) await admin.create(resources.Namespaces, { metadata: { name } });
  await admin.create(resources.AppProjects, { metadata: { name: "default", namespace: ns }, spec: {} });
  // The key is Argo CD's; both controllers read it through their Deployment's env.
  await createArgoCdSettings(admin, ns, { "applicationsetcontroller.policy": "create-update" });
  await installArgoCd(admin, (o) => applier.resourceOf(o), argoCdAppSetObjects(ns));
});

afterAll(async () => {
  for (const p of started) await p.stop();
  for (const name of [ns, helmNs]) await admin.delete(resources.Namespaces, { name }).catch(() => undefined);
  await admin.transport.close();
  temp.cleanup();
});

const ref = (kind: string, name: string, namespace?: string): Manifest => ({
  apiVersion:
    kind === "Deployment"
      ? "apps/v1"
      : kind === "CustomResourceDefinition"
        ? "apiextensions.k8s.io/v1"
        : kind === "Role"
          ? "rbac.authorization.k8s.io/v1"
          : "v1",
  kind,
  metadata: { name, namespace },
});

async function live<T>(obj: Manifest): Promise<T> {
  return admin.get<T & KubeObject>(await applier.resourceOf(obj), { namespace: obj.metadata.namespace, name: obj.metadata.name });
}

const deployment = (): Promise<Deployment> => live<Deployment>(ref("Deployment", NAME, ns));

type CrdManifest = Manifest & {
  spec: { group: string; names: { plural: string }; versions: { name: string; storage: boolean }[] };
  status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[] };
};

/**
 * Waits until the apiserver serves each CRD's objects from its watch cache (a list at
 * resourceVersion 0 answers). A CRD deleted while that cache still initialises is held by the
 * apiserver's finalizer, which retries with a growing back-off (seen on a loaded machine as over a
 * minute; kubernetes/kubernetes#140485): what the page's commands do is not measured by it.
 */
async function crdsServed(objects: readonly Manifest[]): Promise<void> {
  for (const o of objects.filter((x): x is CrdManifest => x.kind === "CustomResourceDefinition")) {
    const version = o.spec.versions.find((v) => v.storage)?.name ?? "";
    const path = `/apis/${o.spec.group}/${version}/${o.spec.names.plural}`;
    await eventually(`${o.metadata.name} served`, async () => {
      await admin.transport.request({ method: "GET", path, query: { resourceVersion: "0", limit: 1 } });
      return true;
    });
  }
}

/** Waits until each object is gone; a CRD that stays says why (its Terminating condition). */
async function allGone(objects: readonly Manifest[]): Promise<void> {
  for (const o of objects) {
    await eventually(
      `${o.kind} ${o.metadata.name} gone`,
      async () => {
        if (!(await applier.exists(o))) return true;
        if (o.kind !== "CustomResourceDefinition") return undefined;
        const terminating = (await live<CrdManifest>(o)).status?.conditions?.find((c) => c.type === "Terminating");
        throw new Error(`still there, Terminating: ${JSON.stringify(terminating ?? null)}`);
      },
      120_000,
    );
  }
}

/** What a kubelet runs for the live Deployment's container: ours or Argo CD's, by its image. */
async function startContainer(): Promise<ContainerProcess> {
  const d = await deployment();
  const pod = d.spec.template.spec;
  const container = pod.containers[0]!;
  const env = await containerEnv(admin, ns, container);
  const kubeconfig = await tokenKubeconfig(admin, inject("kubeconfigPath"), ns, pod.serviceAccountName, temp.make("beside-token-"));
  const p = container.image === ARGOCD_IMAGE ? startArgoCdAppSet(container, env, kubeconfig) : startOurs(container, env, kubeconfig);
  started.push(p);
  return p;
}

async function stopContainer(): Promise<void> {
  await running?.stop();
  running = undefined;
}

/**
 * Runs the page's commands in `blocks` in order against `place`; in the Argo CD namespace a scale to
 * zero stops the container's process and a scale up starts the live Deployment's.
 */
async function runBlocks(blocks: readonly CodeBlock[], place: Placement): Promise<number> {
  let count = 0;
  for (const block of blocks.filter((b) => b.lang === "sh")) {
    for (const cmd of shellCommands(block.text)) {
      await kubectl(applier, place, cmd, () => new Date());
      count++;
      const replicas = cmd.argv[1] === "-n" && cmd.argv[3] === "scale" ? Number(cmd.argv[cmd.argv.indexOf("--replicas") + 1]) : undefined;
      if (place.namespace("argocd") === ns && replicas === 0) await stopContainer();
      if (place.namespace("argocd") === ns && replicas !== undefined && replicas > 0) running = await startContainer();
    }
  }
  return count;
}

/** generation and resourceVersion of each of Argo CD's CRDs. */
async function crdState(): Promise<string[]> {
  return Promise.all(
    CRD_NAMES.map(async (n) => {
      const m = (await live<Crd>(ref("CustomResourceDefinition", n))).metadata!;
      return `${n} generation=${m.generation} resourceVersion=${m.resourceVersion}`;
    }),
  );
}

/** Every leaf of `value` as `path=value`. */
function leaves(value: unknown, path = ""): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => leaves(v, `${path}[${i}]`));
  if (value !== null && typeof value === "object") return Object.entries(value).flatMap(([k, v]) => leaves(v, `${path}.${k}`));
  return [`${path}=${JSON.stringify(value)}`];
}

/** The leaves of Argo CD's live CRDs' specs that this project's CRDs do not have. */
async function argoCdOnlyLeaves(): Promise<string[]> {
  const ours = new Map(renderKustomization("deploy/crds").map((c) => [c.metadata.name, new Set(leaves(c["spec"]))]));
  const out: string[] = [];
  for (const n of CRD_NAMES) {
    const mine = ours.get(n)!;
    out.push(
      ...leaves((await live<Crd>(ref("CustomResourceDefinition", n))).spec)
        .filter((l) => !mine.has(l))
        .map((l) => `${n}${l}`),
    );
  }
  return out;
}

const appSet = (envs: readonly string[], team: string): KubeObject => ({
  apiVersion: "argoproj.io/v1alpha1",
  kind: "ApplicationSet",
  metadata: { name: "guestbook", namespace: ns },
  spec: {
    generators: [{ list: { elements: envs.map((env) => ({ env })) } }],
    template: {
      metadata: { name: "{{env}}-guestbook", labels: { team } },
      spec: {
        project: "default",
        source: { repoURL: "https://example.com/guestbook.git", path: "{{env}}" },
        destination: { server: "https://kubernetes.default.svc", namespace: "{{env}}" },
      },
    },
  },
});

async function setElements(envs: readonly string[], team: string): Promise<void> {
  const body = { spec: (appSet(envs, team) as { spec: unknown }).spec };
  await admin.patch(resources.ApplicationSets, { namespace: ns, name: "guestbook" }, { type: "merge", body });
}

/** Waits until the Applications are exactly the keys of `teams`, each with its `team` label and owned by the ApplicationSet. */
async function waitForApps(teams: Record<string, string>, by: ContainerProcess): Promise<Map<string, Application>> {
  const set = await admin.get(resources.ApplicationSets, { namespace: ns, name: "guestbook" });
  const owner = JSON.stringify([["ApplicationSet", "guestbook", set.metadata?.uid, true]]);
  return eventually(
    `Applications ${JSON.stringify(teams)} (log: ${by.logPath})`,
    async () => {
      const apps = await applications(admin, ns);
      const names = [...apps.keys()].sort().join(",") === Object.keys(teams).sort().join(",");
      const ok = [...apps].every(
        ([n, a]) =>
          a.metadata.labels?.["team"] === teams[n] &&
          JSON.stringify(a.metadata.ownerReferences?.map((o) => [o.kind, o.name, o.uid, o.controller])) === owner,
      );
      return names && ok ? apps : undefined;
    },
    90_000,
  );
}

/** The Applications kept their uid since first seen (updated in place, never recreated). */
function remember(apps: Map<string, Application>): void {
  for (const [name, a] of apps) {
    const uid = a.metadata.uid!;
    expect(uids.get(name) ?? uid, `uid of ${name}`).toBe(uid);
    uids.set(name, uid);
  }
}

function forbiddenLines(p: ContainerProcess): unknown[] {
  return p.logs().filter((l) => /forbidden/i.test(JSON.stringify(l)));
}

describe("docs/migrate.md: from Argo CD's ApplicationSet controller to ours", () => {
  it("starts with Argo CD v3.6.2's controller, run as its Deployment's container, generating the Applications", async () => {
    running = await startContainer();
    await admin.create(resources.ApplicationSets, appSet(["dev", "qa"], "a"));
    remember(await waitForApps({ "dev-guestbook": "a", "qa-guestbook": "a" }, running));
    expect(forbiddenLines(running)).toEqual([]);
  }, 150_000);

  it("applies deploy/beside-argocd over Argo CD's objects with the page's commands, leaving Argo CD's CRDs as they were", async () => {
    const rendered = renderKustomization(OVERLAY);
    expect(rendered.map((o) => o.kind).sort()).toEqual([
      // The rollout safety CRDs of our own group (deploy/rollout-crds); none of Argo CD's.
      "CustomResourceDefinition",
      "CustomResourceDefinition",
      "Deployment",
      "NetworkPolicy",
      "PodDisruptionBudget",
      "Role",
      "RoleBinding",
      "Service",
      "Service",
      "ServiceAccount",
    ]);
    const crdsBefore = await crdState();
    const argoOnly = await argoCdOnlyLeaves();
    expect(argoOnly.length, "Argo CD's CRDs differ from ours somewhere").toBeGreaterThan(0);

    expect(await runBlocks(sectionBlocks(markdown, "Moving to this controller"), placement(ns, run))).toBe(4);

    expect(await crdState()).toEqual(crdsBefore);
    expect(await argoCdOnlyLeaves()).toEqual(argoOnly);
    const d = await deployment();
    const container = d.spec.template.spec.containers[0]!;
    const ours = rendered.find((o) => o.kind === "Deployment") as Deployment;
    expect(container.image).toBe(ours.spec.template.spec.containers[0]!.image);
    // What our manifests do not set stays as Argo CD's install wrote it: argo-helm's arguments.
    expect(container.args).toEqual([ARGO_PROGRAM, "--metrics-addr=:8080", "--probe-addr=:8081", "--webhook-addr=:7000"]);
    const managers = (d.metadata["managedFields"] as Array<{ manager: string }>).map((f) => f.manager);
    expect(managers).toEqual(expect.arrayContaining([ARGOCD_INSTALL_MANAGER, "kubectl"]));
    expect(d.spec.replicas).toBe(1);
    // Server-side apply replaced the Role's rules as a whole: the ServiceAccount holds ours only.
    const role = await live<{ rules: unknown }>(ref("Role", NAME, ns));
    expect(role.rules).toEqual(readManifests(join(REPO_ROOT, "deploy/base/role.yaml"))[0]!["rules"]);
  }, 150_000);

  it("runs ours from the taken-over container (argo-helm's leading argument, Argo CD's settings, its token) and it updates Argo CD's Applications in place", async () => {
    const ours = running!;
    const start = await eventually(
      `our controller starting (log: ${ours.logPath})`,
      () => Promise.resolve(ours.logs().find((l) => l["msg"] === "applicationset controller starting")),
      60_000,
    );
    expect(start).toMatchObject({ namespace: ns, policy: "create-update" });
    await setElements(["dev", "qa", "prod"], "b");
    remember(await waitForApps({ "dev-guestbook": "b", "qa-guestbook": "b", "prod-guestbook": "b" }, ours));
    await waitForConditions(admin, ns, "guestbook", SUCCESS, 60_000);
    expect(forbiddenLines(ours)).toEqual([]);
  }, 150_000);
});

describe("docs/migrate.md: back to Argo CD's ApplicationSet controller", () => {
  it("removes the overlay with the page's command, and Argo CD's controller from its re-applied install updates our Applications in place", async () => {
    const back = sectionBlocks(markdown, "Moving back");
    expect(back.map((b) => b.text.trim())).toEqual([
      "kubectl delete -k deploy/beside-argocd",
      "kubectl -n argocd rollout status deployment argocd-applicationset-controller",
    ]);
    const place = placement(ns, run);
    await runBlocks(back.slice(0, 1), place);
    await stopContainer(); // the Deployment is gone, and its pods with it
    // A CRD goes once the apiserver has removed its objects: wait for each.
    await allGone(renderKustomization(OVERLAY).map(place.object));
    expect((await applications(admin, ns)).size).toBe(3);

    await installArgoCd(admin, (o) => applier.resourceOf(o), argoCdAppSetObjects(ns));
    await runBlocks(back.slice(1), place);
    expect((await deployment()).spec.template.spec.containers[0]!.image).toBe(ARGOCD_IMAGE);
    running = await startContainer();
    // Argo CD's controller reads the same create-update policy: qa, dropped from the list, is kept as it was.
    await setElements(["dev", "prod"], "c");
    remember(await waitForApps({ "dev-guestbook": "c", "qa-guestbook": "b", "prod-guestbook": "c" }, running));
    expect(forbiddenLines(running)).toEqual([]);
  }, 300_000);
});

describe("docs/migrate.md: argo-helm", () => {
  it("with the chart's controller off, the page's commands install deploy/beside-argocd alone, roll it out and remove it, leaving Argo CD's CRDs", async () => {
    const blocks = sectionBlocks(markdown, "Turning the chart's controller off");
    // The values blocks are `text`: the docs' example runner validates YAML blocks as Kubernetes objects.
    expect(blocks.filter((b) => b.lang === "text").map((b) => parse(b.text) as unknown)).toEqual([{ applicationSet: { enabled: false } }]);
    const crdsBefore = await crdState();
    const place = placement(helmNs, run);
    const objects = renderKustomization(OVERLAY).map(place.object);
    const [install, remove] = blocks.filter((b) => b.lang === "sh");
    expect(await runBlocks([install!], place)).toBe(2);
    for (const o of objects) expect(await applier.exists(o), `${o.kind} ${o.metadata.name}`).toBe(true);
    await crdsServed(objects);
    expect(await runBlocks([remove!], place)).toBe(1);
    // A CRD goes once the apiserver has removed its objects: wait for each.
    await allGone(objects);
    expect(await crdState()).toEqual(crdsBefore);
  }, 200_000);

  it("the image-swap values name this project's image at the tag deploy/base runs", () => {
    const [values] = sectionBlocks(markdown, "Swapping the image").filter((b) => b.lang === "text");
    const image = (parse(values!.text) as { applicationSet: { image: { repository: string; tag: string } } }).applicationSet.image;
    const ours = (renderKustomization(OVERLAY).find((o) => o.kind === "Deployment") as Deployment).spec.template.spec.containers[0]!.image;
    const [name, tag] = ours.split(":");
    expect(image.repository.split("/").at(-1)).toBe(name);
    expect(image.tag).toBe(tag);
  });
});
