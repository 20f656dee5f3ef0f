/**
 * The `helm template` command of a Helm source, built as Argo CD's repo server builds it
 * (docs/sync-engine.md#helm): the chart is the source's path, the release is `releaseName` or the
 * Application's name, the namespace is `helm.namespace` or the destination's; `--set`,
 * `--set-string` (forceString) and `--set-file` from the parameters; `--values` for each value
 * file, then one for `values`/`valuesObject`; `--api-versions` for each of the cluster's (or the
 * source's) API versions; `--include-crds` unless `skipCrds`. Pure: paths come resolved against
 * the repository's file list and the caller's work directory.
 */
import { posix } from "node:path";
import { yaml } from "../../yaml.js";
import type { HelmSource } from "../../api/index.js";
import { AppSetError } from "../../errors.js";
import { MANIFEST_ERROR } from "../manifests.js";
import { envsubst, type EnvEntry } from "./envsubst.js";
import { expandGlob, isGlob, resolveRepoPath, type RepoPath } from "./repo-paths.js";

/** What the command is built from. */
export interface HelmInput {
  readonly helm: HelmSource | undefined;
  /** The source's path, relative to the repository root ("" for the root). */
  readonly appPath: string;
  /** The Application's tracking name: `name`, or `namespace_name` outside the control plane's namespace. */
  readonly instanceName: string;
  /** The destination namespace. */
  readonly namespace: string;
  /** The destination cluster's version (`v1.36.3`) and API versions, as defaults. */
  readonly kubeVersion: string;
  readonly apiVersions: readonly string[];
  readonly env: readonly EnvEntry[];
  /** The repository's files, relative to its root. */
  readonly files: readonly string[];
  /** The absolute directory the repository is checked out in. */
  readonly workDir: string;
  /** Where the caller writes {@link HelmCommand.values} when there are any. */
  readonly valuesPath: string;
  readonly valueFileSchemes?: readonly string[];
  /** `$<ref>/<path>` value files and file parameters → the paths of the referenced files (render/ref-values.ts). */
  readonly refFiles?: ReadonlyMap<string, readonly string[]>;
}

/** The command: its arguments (run in the chart's directory) and the inline values file to write. */
export interface HelmCommand {
  readonly args: string[];
  readonly values?: string;
}

/**
 * A Kubernetes version as Kubernetes' generic parser reads it: `v` optional, at least major and
 * minor, anything after the numbers ignored; "" stays "".
 */
export function parseKubeVersion(version: string): string {
  if (version === "") return "";
  const m = /^\s*v?([0-9]+(?:\.[0-9]+)*)/.exec(version);
  const parts = m?.[1]?.split(".") ?? [];
  if (parts.length < 2) {
    throw new AppSetError(MANIFEST_ERROR, `could not parse kubernetes version ${version}: illegal version string "${version}"`);
  }
  return parts.map((p) => String(Number(p))).join(".");
}

/** A `--set` value with unescaped commas escaped, unless it is a `{a,b}` list. */
export function escapeSetValue(v: string): string {
  if (v.startsWith("{") && v.endsWith("}")) return v;
  let out = "";
  let prev = "";
  for (const c of v) {
    out += c === "," && prev !== "\\" ? "\\," : c;
    prev = c;
  }
  return out;
}

/** The name part of a tracking name (`ns_name` → `name`). */
function releaseOf(instanceName: string): string {
  const i = instanceName.indexOf("_");
  return i < 0 ? instanceName : instanceName.slice(i + 1);
}

/** `helm.values` or, when set, `helm.valuesObject` as YAML; undefined when empty. */
export function inlineValues(helm: HelmSource | undefined): string | undefined {
  const obj = helm?.valuesObject;
  const text = obj !== undefined && obj !== null ? yaml().stringify(obj, { lineWidth: 0 }) : (helm?.values ?? "");
  return text === "" ? undefined : text;
}

const absolute = (i: HelmInput, p: RepoPath): string => ("url" in p ? p.url : posix.join(i.workDir, p.file));

/** `v` unless it is empty, else `fallback`. */
export const orDefault = <T extends string | readonly string[]>(v: T | undefined, fallback: T): T =>
  v !== undefined && v.length > 0 ? v : fallback;

/** The repository files of the non-glob value files: a glob leaves these out, so they keep their own place. */
function explicitFiles(raw: readonly string[], resolve: (f: string) => RepoPath, refs?: ReadonlyMap<string, unknown>): Set<string> {
  const explicit = new Set<string>();
  for (const f of raw) {
    try {
      if (refs?.has(f) === true) continue;
      const p = resolve(f);
      if ("file" in p && !isGlob(p.file)) explicit.add(p.file);
    } catch {
      // Reported when the list is resolved.
    }
  }
  return explicit;
}

/** The value files in order: globs expanded (leaving out files also named explicitly), missing files dropped when asked. */
export function resolveValueFiles(i: HelmInput): string[] {
  const raw = i.helm?.valueFiles ?? [];
  const ignoreMissing = i.helm?.ignoreMissingValueFiles === true;
  const have = new Set(i.files);
  const resolve = (f: string): RepoPath => resolveRepoPath(i.appPath, envsubst(f, i.env), i.valueFileSchemes);
  const explicit = explicitFiles(raw, resolve, i.refFiles);
  const out: string[] = [];
  const add = (s: string): void => {
    if (!out.includes(s)) out.push(s);
  };
  const expand = (f: string, pattern: string): void => {
    const matches = expandGlob(pattern, i.files);
    if (matches.length === 0 && !ignoreMissing) throw new AppSetError(MANIFEST_ERROR, `values file glob "${f}" matched no files`);
    for (const m of matches) if (!explicit.has(m)) add(absolute(i, { file: m }));
  };
  for (const f of raw) {
    const referenced = i.refFiles?.get(f);
    if (referenced !== undefined) {
      referenced.forEach(add);
      continue;
    }
    const p = resolve(f);
    if ("url" in p) add(p.url);
    else if (isGlob(p.file)) expand(f, p.file);
    else if (!ignoreMissing || have.has(p.file)) add(absolute(i, p));
  }
  return out;
}

/** The file a `--set-file` parameter names: a referenced source's file, else one of the repository (or a URL). */
function fileParameterPath(i: HelmInput, path: string): string {
  return i.refFiles?.get(path)?.[0] ?? absolute(i, resolveRepoPath(i.appPath, envsubst(path, i.env), i.valueFileSchemes));
}

/** Arguments for the parameters, in the order given (Argo CD's order is a map's, so any order is its). */
function parameterArgs(i: HelmInput): string[] {
  const set = new Map<string, string>();
  const setString = new Map<string, string>();
  const files = new Map<string, string>();
  for (const p of i.helm?.parameters ?? []) (p.forceString === true ? setString : set).set(p.name ?? "", envsubst(p.value ?? "", i.env));
  for (const p of i.helm?.fileParameters ?? []) files.set(p.name ?? "", fileParameterPath(i, p.path ?? ""));
  const flags = (flag: string, m: Map<string, string>): string[] => [...m].flatMap(([k, v]) => [flag, `${k}=${escapeSetValue(v)}`]);
  return [...flags("--set", set), ...flags("--set-string", setString), ...flags("--set-file", files)];
}

/** The `helm template` command of a source. */
export function helmTemplateCommand(i: HelmInput): HelmCommand {
  const helm = i.helm ?? {};
  const name = orDefault(orDefault(helm.releaseName, releaseOf(i.instanceName)), i.instanceName);
  const namespace = orDefault(helm.namespace, i.namespace);
  const kubeVersion = parseKubeVersion(orDefault(helm.kubeVersion, i.kubeVersion));
  const values = inlineValues(helm);
  const args = ["template", ".", "--name-template", name];
  if (namespace !== "") args.push("--namespace", namespace);
  if (kubeVersion !== "") args.push("--kube-version", kubeVersion);
  args.push(...parameterArgs(i));
  for (const f of resolveValueFiles(i)) args.push("--values", f);
  if (values !== undefined) args.push("--values", i.valuesPath);
  for (const v of orDefault(helm.apiVersions, i.apiVersions)) args.push("--api-versions", v);
  const flags: [boolean, string][] = [
    [helm.skipCrds !== true, "--include-crds"],
    [helm.skipSchemaValidation === true, "--skip-schema-validation"],
    [helm.skipTests === true, "--skip-tests"],
  ];
  for (const [on, flag] of flags) if (on) args.push(flag);
  return values === undefined ? { args } : { args, values };
}
