/**
 * The subset of kustomize the manifests in deploy/ use, so the tests can render them without a
 * kustomize or kubectl binary: `resources` (YAML files, possibly multi-document, and directories
 * holding a kustomization.yaml) and `namespace` (set on every namespaced object, on Namespace
 * objects' names and on ServiceAccount subjects of role bindings). Any other kustomization field is
 * refused, so a manifest using more than this subset fails the tests instead of rendering wrongly.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { parseAllDocuments, parse as parseYaml } from "yaml";

/** One rendered Kubernetes object. */
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; [k: string]: unknown };
  [field: string]: unknown;
}

/** The repository root. */
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

/** The deploy/ folder. */
export const DEPLOY_DIR = join(REPO_ROOT, "deploy");

/** The kinds in deploy/ that are cluster-scoped; every other kind is namespaced. */
const CLUSTER_SCOPED = new Set(["Namespace", "CustomResourceDefinition", "ClusterRole", "ClusterRoleBinding"]);

const SUPPORTED_FIELDS = new Set(["apiVersion", "kind", "resources", "namespace"]);

interface Kustomization {
  resources?: string[];
  namespace?: string;
}

/** Whether objects of `kind` live in a namespace. */
export function isNamespaced(kind: string): boolean {
  return !CLUSTER_SCOPED.has(kind);
}

function readKustomization(dir: string): Kustomization {
  const doc = parseYaml(readFileSync(join(dir, "kustomization.yaml"), "utf8")) as Record<string, unknown>;
  for (const key of Object.keys(doc)) {
    if (!SUPPORTED_FIELDS.has(key)) throw new Error(`${relative(REPO_ROOT, dir)}/kustomization.yaml: unsupported field "${key}"`);
  }
  return doc;
}

/** The objects of one YAML file, in order (empty documents skipped). */
export function readManifests(file: string): Manifest[] {
  const docs = parseAllDocuments(readFileSync(file, "utf8"));
  const out: Manifest[] = [];
  for (const d of docs) {
    if (d.errors.length > 0) throw new Error(`${relative(REPO_ROOT, file)}: ${d.errors[0]?.message}`);
    const obj = d.toJS() as Manifest | null;
    if (obj !== null) out.push(obj);
  }
  return out;
}

/** Places one object in `namespace`, the way kustomize's namespace transformer does. */
export function setNamespace(obj: Manifest, namespace: string): Manifest {
  const copy = structuredClone(obj);
  if (obj.kind === "Namespace") copy.metadata.name = namespace;
  else if (isNamespaced(obj.kind)) copy.metadata.namespace = namespace;
  if (obj.kind === "RoleBinding" || obj.kind === "ClusterRoleBinding") {
    const subjects = (copy["subjects"] ?? []) as Array<{ kind: string; namespace?: string }>;
    for (const s of subjects) if (s.kind === "ServiceAccount") s.namespace = namespace;
  }
  return copy;
}

/** Renders the kustomization in `dir` (relative to the repository root, or absolute). */
export function renderKustomization(dir: string): Manifest[] {
  const abs = dir.startsWith("/") ? dir : join(REPO_ROOT, dir);
  const k = readKustomization(abs);
  const objects = (k.resources ?? []).flatMap((r) => {
    const path = join(abs, r);
    if (!existsSync(path)) throw new Error(`${relative(REPO_ROOT, abs)}/kustomization.yaml: resource "${r}" does not exist`);
    return statSync(path).isDirectory() ? renderKustomization(path) : readManifests(path);
  });
  return k.namespace === undefined ? objects : objects.map((o) => setNamespace(o, k.namespace!));
}

/** `Kind/namespace/name` of an object, for messages and lookups. */
export function manifestId(obj: Manifest): string {
  return [obj.kind, obj.metadata.namespace, obj.metadata.name].filter((p) => p !== undefined).join("/");
}
