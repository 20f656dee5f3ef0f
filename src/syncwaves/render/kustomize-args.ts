/**
 * The commands that render a Kustomize source, as Argo CD's repo server runs them
 * (docs/sync-engine.md#kustomize): in the source's directory, `kustomize edit` sets the name prefix
 * and suffix, images, replicas, common labels and annotations, the namespace, and adds
 * components; `patches` are appended to the kustomization file (Kustomize has no edit command for
 * them); then `kustomize build <dir>` runs from the repository root, with argocd-cm's
 * `kustomize.buildOptions` (and, when those enable Helm, the cluster's version and API versions).
 * Pure.
 */
import { yaml } from "../../yaml.js";
import type { KustomizeSource } from "../../api/index.js";
import { AppSetError } from "../../errors.js";
import { MANIFEST_ERROR } from "../manifests.js";
import { envsubst, type EnvEntry } from "./envsubst.js";
import { orDefault, parseKubeVersion } from "./helm-args.js";

/** What the commands are built from. */
export interface KustomizeInput {
  readonly kustomize: KustomizeSource | undefined;
  /** Absolute directory of the source in the work tree. */
  readonly dir: string;
  readonly env: readonly EnvEntry[];
  /** argocd-cm `kustomize.buildOptions`. */
  readonly buildOptions?: string;
  readonly kubeVersion: string;
  readonly apiVersions: readonly string[];
  /** For `ignoreMissingComponents`: true when a component directory (relative to the source) holds a kustomization. */
  readonly hasKustomization?: (component: string) => boolean;
}

/** `key:value` arguments, sorted by key. */
const pairs = (m: Record<string, string>, value: (v: string) => string = (v) => v): string[] =>
  Object.keys(m)
    .sort()
    .map((k) => `${k}:${value(m[k] ?? "")}`);

/** A replica count as an integer, or Argo CD's error. */
function replicaCount(count: number | string): number {
  if (typeof count === "number") return count;
  if (!/^[+-]?\d+$/.test(count)) throw new AppSetError(MANIFEST_ERROR, `expected integer value for count. Received: ${count}`);
  return Number(count);
}

function labelArgs(k: KustomizeSource, env: readonly EnvEntry[]): string[] {
  const args = ["edit", "add", "label"];
  if (k.forceCommonLabels === true) args.push("--force");
  if (k.labelWithoutSelector === true) args.push("--without-selector");
  if (k.labelIncludeTemplates === true) args.push("--include-templates");
  return [...args, ...pairs(k.commonLabels ?? {}, (v) => envsubst(v, env))];
}

function annotationArgs(k: KustomizeSource, env: readonly EnvEntry[]): string[] {
  const args = ["edit", "add", "annotation"];
  if (k.forceCommonAnnotations === true) args.push("--force");
  const value = k.commonAnnotationsEnvsubst === true ? (v: string): string => envsubst(v, env) : undefined;
  return [...args, ...pairs(k.commonAnnotations ?? {}, value)];
}

/** The `kustomize edit` commands, each run in the source's directory, before patches are written. */
export function editCommands(i: KustomizeInput): string[][] {
  const k = i.kustomize;
  if (k === undefined) return [];
  const images = k.images ?? [];
  const replicas = k.replicas ?? [];
  const steps: [boolean, () => string[]][] = [
    [Boolean(k.namePrefix), () => ["edit", "set", "nameprefix", "--", k.namePrefix ?? ""]],
    [Boolean(k.nameSuffix), () => ["edit", "set", "namesuffix", "--", k.nameSuffix ?? ""]],
    [images.length > 0, () => ["edit", "set", "image", ...images.map((im) => envsubst(im, i.env))]],
    [replicas.length > 0, () => ["edit", "set", "replicas", ...replicas.map((r) => `${r.name}=${String(replicaCount(r.count))}`)]],
    [Object.keys(k.commonLabels ?? {}).length > 0, () => labelArgs(k, i.env)],
    [Object.keys(k.commonAnnotations ?? {}).length > 0, () => annotationArgs(k, i.env)],
    [Boolean(k.namespace), () => ["edit", "set", "namespace", "--", k.namespace ?? ""]],
  ];
  return steps.filter(([on]) => on).map(([, args]) => args());
}

/** The `kustomize edit add component` command, run after patches are written; undefined when none applies. */
export function componentCommand(i: KustomizeInput): string[] | undefined {
  const k = i.kustomize;
  const wanted = k?.components ?? [];
  const found = k?.ignoreMissingComponents === true ? wanted.filter((c) => i.hasKustomization?.(c) === true) : wanted;
  return found.length > 0 ? ["edit", "add", "component", ...found] : undefined;
}

/** The kustomization file's text with `patches` appended, or the errors Argo CD reports. */
export function withPatches(text: string, k: KustomizeSource): string {
  let doc: unknown;
  try {
    doc = yaml().parse(text) as unknown;
  } catch (err) {
    throw new AppSetError(MANIFEST_ERROR, `failed to unmarshal kustomization.yaml: ${(err as Error).message}`);
  }
  if (doc === null || typeof doc !== "object" || Array.isArray(doc)) {
    throw new AppSetError(MANIFEST_ERROR, "expected kustomization.yaml to be type map[string]any, but got <nil>");
  }
  const map = doc as Record<string, unknown>;
  const existing = map["patches"];
  if (existing !== undefined && existing !== null && !Array.isArray(existing)) {
    throw new AppSetError(MANIFEST_ERROR, `expected 'patches' field in kustomization.yaml to be []any, but got ${typeof existing}`);
  }
  map["patches"] = [...((existing as unknown[] | undefined | null) ?? []), ...(k.patches ?? [])];
  return yaml().stringify(map, { lineWidth: 0, sortMapEntries: true });
}

/** True when Kustomize's build options enable Helm. */
const helmEnabled = (options: string): boolean => options.includes("--enable-helm");

/** The `kustomize build` arguments, run from the repository root. */
export function buildArgs(i: KustomizeInput): string[] {
  const options = (i.buildOptions ?? "").trim();
  if (options === "") return ["build", i.dir];
  const args = ["build", i.dir, ...options.split(/\s+/)];
  if (helmEnabled(options)) {
    const k = i.kustomize;
    const version = parseKubeVersion(orDefault(k?.kubeVersion, i.kubeVersion));
    if (version !== "") args.push("--helm-kube-version", version);
    for (const v of orDefault(k?.apiVersions, i.apiVersions)) args.push("--helm-api-versions", v);
  }
  return args;
}
