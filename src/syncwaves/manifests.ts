/**
 * Manifest sources: the {@link ManifestSource} port the engine reads desired objects through, and
 * the pure parsing of a directory source (plain YAML/JSON, multi-document files, `recurse`,
 * `include`/`exclude` globs). A Git-backed source plugs in behind the same port: it resolves
 * `targetRevision` to a commit, lists the tree under `path` and hands the files to
 * {@link parseDirectory}.
 */
import { braceExpand, Minimatch, type MinimatchOptions } from "minimatch";
import type * as Yaml from "yaml";
import { yaml } from "../yaml.js";
import type { Application, ApplicationSource, DirectorySource } from "../api/index.js";
import { remember } from "../bounded-map.js";
import { AppSetError } from "../errors.js";
import { MAX_ALTERNATIVES } from "../git/doublestar.js";
import type { ClusterFacts, KubeObject } from "../kube/index.js";
import type { RefRepo } from "./render/ref-values.js";
import type { RefTarget } from "./sources.js";

/** The desired objects of an Application at a resolved revision. */
export interface Manifests {
  /** The resolved revision (a commit SHA for Git). */
  readonly revision: string;
  readonly objects: readonly KubeObject[];
  /** How the source was rendered (`status.sourceType`): Directory unless a tool rendered it (Helm, Kustomize). */
  readonly sourceType?: string;
}

/** How a read may use what a source cached. */
export interface ReadOptions {
  /** A hard refresh (`argocd.argoproj.io/refresh: hard`): resolve the revision again, whatever is cached. */
  readonly hard?: boolean;
  /**
   * Any refresh (`argocd.argoproj.io/refresh`, normal or hard, as a webhook push sets it): the
   * revision is resolved afresh, past the Git service's short revision cache.
   */
  readonly refresh?: boolean;
  /** Aborted at the reconcile's deadline or when the engine stops: give up waiting. */
  readonly signal?: AbortSignal;
  /** The Application's tracking name (Helm's release name and `ARGOCD_APP_NAME` come from it); default its name. */
  readonly instanceName?: string;
  /** The destination cluster's version and API versions, asked for only when a tool renders the source. */
  readonly cluster?: () => Promise<ClusterFacts>;
  /** `$<ref>` → the ref sources of a multi-source Application (sources.ts), for Helm's `$<ref>/...` paths. */
  readonly refSources?: ReadonlyMap<string, RefTarget>;
  /** The ref sources' repositories resolved to commits: filled in by the Git source before a Helm render. */
  readonly refRepos?: ReadonlyMap<string, RefRepo>;
}

/** Where the engine gets desired objects from. Fails with an {@link AppSetError} the engine reports as a ComparisonError. */
export interface ManifestSource {
  /** Reads the manifests of `source`, at `revision` when given (a sync's pinned revision), else its targetRevision. */
  read(app: Application, source: ApplicationSource, revision?: string, options?: ReadOptions): Promise<Manifests>;
  /**
   * The revision `source` resolves to (at `revision` when given), without rendering it: a ref-only
   * source of a multi-source Application. Absent: the revision asked for, else the targetRevision.
   */
  revisionOf?(source: ApplicationSource, revision?: string, options?: ReadOptions): Promise<string>;
}

/** A file of a source tree, its path relative to the source's `path`. */
export interface SourceFile {
  readonly path: string;
  readonly content: string;
}

/** The reason of manifest errors. */
export const MANIFEST_ERROR = "ManifestError";

/** True when `err` says the manifests cannot be generated (as opposed to, say, the cluster being unreachable). */
export const isManifestError = (err: unknown): boolean => err instanceof AppSetError && err.reason === MANIFEST_ERROR;

const MANIFEST_EXT = /\.(ya?ml|json)$/i;

/** How many compiled source globs are kept. */
const GLOB_CACHE_SIZE = 1_000;
const compiledGlobs = new Map<string, Minimatch>();

/**
 * A glob an Application's source names (`directory.include`/`exclude`, Helm value-file globs),
 * matched by minimatch with `options`, compiled once per pattern. Its `{a,b}` braces may expand to
 * at most {@link MAX_ALTERNATIVES} patterns: minimatch would match every path against each of up
 * to 100,000, so a larger expansion is a manifest error.
 */
export function sourceGlob(pattern: string, options: MinimatchOptions = {}): (path: string) => boolean {
  const key = `${JSON.stringify(options)}\u0000${pattern}`;
  let mm = compiledGlobs.get(key);
  if (mm === undefined) {
    if (braceExpand(pattern, { braceExpandMax: MAX_ALTERNATIVES + 1 }).length > MAX_ALTERNATIVES) {
      throw new AppSetError(MANIFEST_ERROR, `the glob '${pattern.slice(0, 100)}' expands to more than ${MAX_ALTERNATIVES} patterns`);
    }
    mm = new Minimatch(pattern, options);
    remember(compiledGlobs, key, mm, GLOB_CACHE_SIZE);
  }
  const compiled = mm;
  return (path) => compiled.match(path);
}

/** True when a file of the tree is read, given the directory options (`include`/`exclude` may be `{a,b}` lists). */
export function selectsFile(path: string, dir: DirectorySource | undefined, ext: RegExp = MANIFEST_EXT): boolean {
  if (!ext.test(path)) return false;
  if (dir?.recurse !== true && path.includes("/")) return false;
  const base = path.slice(path.lastIndexOf("/") + 1);
  const match = (glob: string): boolean => sourceGlob(glob)(path) || sourceGlob(glob)(base);
  if (dir?.include && !match(dir.include)) return false;
  if (dir?.exclude && match(dir.exclude)) return false;
  return true;
}

function isObject(v: unknown): v is KubeObject {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** A file that may be a manifest: Argo CD reports it when it does not parse, and ignores any other YAML that does not. */
function looksLikeManifest(content: string): boolean {
  return content.includes("apiVersion:") && content.includes("kind:") && content.includes("metadata:");
}

/** Why a document is not a Kubernetes object, or undefined when it is one. */
function notAnObject(value: unknown): string | undefined {
  if (!isObject(value)) return "a document is not an object";
  if (typeof value.kind !== "string" || value.kind === "") return "Object 'Kind' is missing";
  if (typeof value.apiVersion !== "string") return "an object without apiVersion";
  return undefined;
}

/** One document's value, or why it is not a Kubernetes object (an empty document is neither). */
function readDocument(doc: ReturnType<typeof Yaml.parseAllDocuments>[number]): { value?: unknown; problem?: string } {
  if (doc.errors.length > 0) return { problem: doc.errors.map((e) => e.message).join("; ") };
  const value: unknown = doc.toJS();
  if (value === null || value === undefined) return {};
  const problem = notAnObject(value);
  return problem === undefined ? { value } : { problem };
}

/**
 * The objects of one file: every YAML document (JSON is YAML); `List` kinds are flattened; empty
 * documents skipped. As Argo CD's repo server: a YAML file whose first document already fails (bad
 * YAML, or not a Kubernetes object) is ignored unless it looks like a manifest (it has
 * `apiVersion:`, `kind:` and `metadata:`), so a `values.yaml` or a tool's config beside the
 * manifests does not fail the Application; a failure after valid objects fails the file.
 */
export function parseFile(file: SourceFile): KubeObject[] {
  const out: KubeObject[] = [];
  const json = /\.json$/i.test(file.path);
  for (const doc of yaml().parseAllDocuments(file.content)) {
    const { value, problem } = readDocument(doc);
    if (problem !== undefined) {
      if (!json && out.length === 0 && !looksLikeManifest(file.content)) return [];
      throw new AppSetError(MANIFEST_ERROR, `Failed to unmarshal "${file.path}": ${problem}`);
    }
    if (value === null || value === undefined) continue;
    const obj = value as KubeObject;
    if (typeof obj.kind === "string" && obj.kind.endsWith("List") && Array.isArray(obj.items)) {
      out.push(...(obj.items as unknown[]).filter(isObject));
    } else {
      out.push(obj);
    }
  }
  return out;
}

/** The objects of a directory source, files in path order. */
export function parseDirectory(files: readonly SourceFile[], dir: DirectorySource | undefined): KubeObject[] {
  return [...files]
    .filter((f) => selectsFile(f.path, dir))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    .flatMap(parseFile);
}

/**
 * A source backed by an in-memory map of `repoURL` → `path` → files and a fixed revision: used by
 * tests, benchmarks and demos that do not need Git.
 */
export class StaticManifestSource implements ManifestSource {
  private readonly trees = new Map<string, { revision: string; files: SourceFile[] }>();

  /** Sets the files under `repoURL`/`path`. */
  set(repoURL: string, path: string, files: SourceFile[], revision = "0000000000000000000000000000000000000000"): void {
    this.trees.set(`${repoURL}#${path}`, { revision, files });
  }

  revisionOf(source: ApplicationSource): Promise<string> {
    const tree = this.trees.get(`${source.repoURL}#${source.path ?? ""}`);
    return Promise.resolve(tree?.revision ?? "0000000000000000000000000000000000000000");
  }

  read(_app: Application, source: ApplicationSource): Promise<Manifests> {
    const tree = this.trees.get(`${source.repoURL}#${source.path ?? ""}`);
    if (tree === undefined)
      return Promise.reject(new AppSetError(MANIFEST_ERROR, `no manifests at ${source.repoURL} ${source.path ?? ""}`));
    try {
      return Promise.resolve({ revision: tree.revision, objects: parseDirectory(tree.files, source.directory) });
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }
}
