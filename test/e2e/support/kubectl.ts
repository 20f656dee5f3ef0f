/**
 * Applies the manifests of deploy/ to a real apiserver the way `kubectl apply --server-side` does
 * (server-side apply, optionally as a dry run), and runs the few kubectl commands docs/install.md
 * shows (apply, delete, rollout status/restart, scale) so every documented command is exercised.
 * An unknown command or flag fails, so the docs cannot show a command the tests do not run.
 */
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { parseAllDocuments } from "yaml";
import { Discovery, isNotFound, type KubeApiClient, type ResourceDescriptor } from "../../../src/kube/index.js";
import type { ShellCommand } from "../../unit/deploy/docs.js";
import { REPO_ROOT, isNamespaced, readManifests, renderKustomization, type Manifest } from "../../unit/deploy/kustomize.js";

/** kubectl's field manager for server-side apply. */
export const FIELD_MANAGER = "kubectl";

const Deployments: ResourceDescriptor = { group: "apps", version: "v1", plural: "deployments", kind: "Deployment", namespaced: true };

/** Sends objects to one apiserver. */
export class Applier {
  private readonly discovery: Discovery;

  constructor(readonly client: KubeApiClient) {
    this.discovery = new Discovery(client.transport);
  }

  /** The resource an object belongs to. */
  resourceOf(obj: Manifest): Promise<ResourceDescriptor> {
    return this.discovery.resourceFor(obj.apiVersion, obj.kind);
  }

  /** Server-side applies each object in order. */
  async apply(objects: readonly Manifest[], options: { dryRun?: boolean; force?: boolean } = {}): Promise<void> {
    for (const obj of objects) {
      const resource = await this.resourceOf(obj);
      const patch = { type: "apply" as const, body: obj, fieldManager: FIELD_MANAGER, force: options.force ?? false };
      await this.client.patch(resource, { namespace: obj.metadata.namespace, name: obj.metadata.name }, patch, {
        dryRun: options.dryRun ?? false,
      });
    }
  }

  /** Deletes each object, last first; fails on a missing one, as kubectl delete does. */
  async delete(objects: readonly Manifest[]): Promise<void> {
    for (const obj of [...objects].reverse()) {
      await this.client.delete(await this.resourceOf(obj), { namespace: obj.metadata.namespace, name: obj.metadata.name });
    }
  }

  /** Whether the object exists on the apiserver. */
  async exists(obj: Manifest): Promise<boolean> {
    try {
      await this.client.get(await this.resourceOf(obj), { namespace: obj.metadata.namespace, name: obj.metadata.name });
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }
}

/** How the tests place documented commands: their namespace, their unique cluster-scoped names. */
export interface Placement {
  /** Rewrites every object before it is sent. */
  readonly object: (obj: Manifest) => Manifest;
  /** Rewrites a namespace named with `-n`. */
  readonly namespace: (ns: string) => string;
}

/**
 * Moves what the manifests place in `argocd` to `namespace`, and suffixes the names of
 * cluster-scoped RBAC objects, so several installs can share one apiserver.
 */
export function placement(namespace: string, suffix: string): Placement {
  const ns = (n: string | undefined): string | undefined => (n === "argocd" ? namespace : n);
  const object = (obj: Manifest): Manifest => {
    const o = structuredClone(obj);
    if (o.kind === "Namespace") o.metadata.name = ns(o.metadata.name)!;
    else if (isNamespaced(o.kind)) o.metadata.namespace = ns(o.metadata.namespace) ?? namespace;
    if (o.kind === "ClusterRole" || o.kind === "ClusterRoleBinding") o.metadata.name = `${o.metadata.name}-${suffix}`;
    const roleRef = o["roleRef"] as { kind: string; name: string } | undefined;
    if (roleRef?.kind === "ClusterRole") roleRef.name = `${roleRef.name}-${suffix}`;
    for (const s of (o["subjects"] ?? []) as Array<{ namespace?: string }>) s.namespace = ns(s.namespace);
    return o;
  };
  return { object, namespace: (n) => ns(n)! };
}

interface Parsed {
  readonly words: string[];
  readonly flags: Map<string, string | true>;
}

const VALUED = new Set(["-n", "--namespace", "-k", "-f", "--replicas"]);
const SWITCHES = new Set(["--server-side", "--force-conflicts"]);

function parseArgs(argv: readonly string[]): Parsed {
  const words: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (VALUED.has(a) && i + 1 < argv.length) flags.set(a, argv[++i]!);
    else if (SWITCHES.has(a)) flags.set(a, true);
    else if (a.startsWith("-")) throw new Error(`unsupported kubectl flag ${a}`);
    else words.push(a);
  }
  return { words, flags };
}

function objectsOf(p: Parsed, stdin: string | undefined): Manifest[] {
  const k = p.flags.get("-k");
  const f = p.flags.get("-f");
  if (typeof k === "string") return renderKustomization(k);
  if (f === "-") {
    if (stdin === undefined) throw new Error("-f - without a here-document");
    return parseAllDocuments(stdin).flatMap((d) => (d.toJS() as Manifest | null) ?? []);
  }
  if (typeof f === "string") return readManifests(join(REPO_ROOT, f));
  throw new Error("kubectl apply/delete needs -k or -f");
}

/** Waits until a Deployment's current generation is rolled out and every replica is available. */
export async function waitForRollout(client: KubeApiClient, namespace: string, name: string, timeoutMs = 90_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const d = await client.get<Manifest & { spec: { replicas?: number }; status?: Record<string, number> }>(Deployments, {
      namespace,
      name,
    });
    const s = d.status ?? {};
    const want = d.spec.replicas ?? 1;
    const generation = (d.metadata as { generation?: number }).generation ?? 0;
    if (
      (s["observedGeneration"] ?? 0) >= generation &&
      s["updatedReplicas"] === want &&
      s["availableReplicas"] === want &&
      (s["replicas"] ?? 0) === want
    )
      return;
    if (performance.now() > deadline) throw new Error(`deployment ${namespace}/${name} did not roll out: ${JSON.stringify(s)}`);
    await sleep(250);
  }
}

/** Runs one documented kubectl command. */
export async function kubectl(applier: Applier, place: Placement, cmd: ShellCommand, clock: () => Date): Promise<void> {
  if (cmd.argv[0] !== "kubectl") throw new Error(`not a kubectl command: ${cmd.argv.join(" ")}`);
  const p = parseArgs(cmd.argv.slice(1));
  const nsFlag = p.flags.get("-n") ?? p.flags.get("--namespace");
  const ns = typeof nsFlag === "string" ? place.namespace(nsFlag) : undefined;
  const inNamespace = (o: Manifest): Manifest =>
    ns !== undefined && isNamespaced(o.kind) && o.metadata.namespace === undefined
      ? { ...o, metadata: { ...o.metadata, namespace: ns } }
      : o;
  const [verb, a, b, c] = p.words;
  if (verb === "apply") {
    if (p.flags.get("--server-side") !== true) throw new Error("the docs apply with --server-side only");
    return applier.apply(objectsOf(p, cmd.stdin).map(inNamespace).map(place.object), { force: p.flags.has("--force-conflicts") });
  }
  if (verb === "delete") return applier.delete(objectsOf(p, cmd.stdin).map(inNamespace).map(place.object));
  if (ns === undefined) throw new Error(`kubectl ${verb} needs -n`);
  if (verb === "rollout" && a === "status" && b === "deployment" && c !== undefined) return waitForRollout(applier.client, ns, c);
  if (verb === "rollout" && a === "restart" && b === "deployment" && c !== undefined) {
    const body = { spec: { template: { metadata: { annotations: { "kubectl.kubernetes.io/restartedAt": clock().toISOString() } } } } };
    await applier.client.patch(Deployments, { namespace: ns, name: c }, { type: "merge", body }, { fieldManager: "kubectl-rollout" });
    return;
  }
  if (verb === "scale" && a === "deployment" && b !== undefined && typeof p.flags.get("--replicas") === "string") {
    await applier.client.patch(
      Deployments,
      { namespace: ns, name: b },
      { type: "merge", body: { spec: { replicas: Number(p.flags.get("--replicas")) } } },
      {
        fieldManager: "kubectl-scale",
      },
    );
    return;
  }
  throw new Error(`unsupported kubectl command: ${cmd.argv.join(" ")}`);
}
