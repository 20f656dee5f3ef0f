/**
 * The Git-backed {@link ManifestSource}: an Application's `repoURL`, `targetRevision` (branch, tag,
 * `HEAD` or commit SHA) and `path`, read through the same {@link GitReader} (and so the same cache
 * by commit) the Git generator uses. The revision is resolved to a commit and the commit's tree is
 * listed; the source's type is decided as Argo CD decides it (render/source-type.ts). A directory's
 * selected files are read in one batch and parsed as plain YAML/JSON manifests; a Helm chart or a
 * kustomization is rendered by the real `helm` or `kustomize` (render/renderer.ts). Manifests
 * are kept per (repository, commit, path, type, options, Application, destination, cluster
 * facts), so many Applications on one commit render it once. A source with `chart` comes from a
 * Helm repository instead (helm-repo/chart-source.ts); an `oci://` source from an OCI artifact,
 * served as a tree whose revision is the artifact's digest (oci-source.ts).
 *
 * I/O boundary: the injected GitReader (the real `git` program behind it) and the renderer.
 */
import type { Application, ApplicationSource } from "../api/index.js";
import { AppSetError } from "../errors.js";
import type { GitReader, RepoAccess, TreeEntry } from "../git/index.js";
import type { ClusterFacts, KubeObject } from "../kube/index.js";
import { ToolRenderer, type ToolRendererOptions } from "./render/renderer.js";
import { SourceType, sourceTypeOf } from "./render/source-type.js";
import { TOOL_TIMEOUT_MS } from "./render/tool.js";
import { refCommits, type RefRepo } from "./render/ref-values.js";
import { referencedTargets } from "./sources.js";
import { HelmChartSource, type HelmChartSourceOptions } from "./helm-repo/chart-source.js";
import { isOciSource, withOciArtifacts, type OciArtifacts } from "./oci-source.js";
import {
  MANIFEST_ERROR,
  parseDirectory,
  selectsFile,
  type ManifestSource,
  type Manifests,
  type ReadOptions,
  type SourceFile,
} from "./manifests.js";

/** Files a directory source would evaluate as Jsonnet. */
const JSONNET_EXT = /\.jsonnet$/i;

/** Git file mode of a symbolic link: its blob is the link target, not a manifest. */
const SYMLINK_MODE = "120000";

/** The `path` of a source as a tree prefix: "" for the repository root. */
export function sourceRoot(path: string | undefined): string {
  const parts = (path ?? "").split("/").filter((p) => p !== "" && p !== ".");
  if (parts.includes("..")) throw new AppSetError(MANIFEST_ERROR, `app path ${path ?? ""} leaves the repository`);
  return parts.join("/");
}

/**
 * The files of a tree under `root` that the directory options select, their paths relative to
 * `root`. Fails when `root` names no directory of the tree.
 */
export function selectEntries(tree: readonly TreeEntry[], source: ApplicationSource, ext?: RegExp): { entry: TreeEntry; path: string }[] {
  const root = sourceRoot(source.path);
  if (root !== "" && !tree.some((e) => e.type === "tree" && e.path === root)) {
    throw new AppSetError(MANIFEST_ERROR, `${source.path ?? ""}: app path does not exist`);
  }
  const prefix = root === "" ? "" : `${root}/`;
  const out: { entry: TreeEntry; path: string }[] = [];
  for (const entry of tree) {
    if (entry.type !== "blob" || entry.mode === SYMLINK_MODE || !entry.path.startsWith(prefix)) continue;
    const path = entry.path.slice(prefix.length);
    if (selectsFile(path, source.directory, ext)) out.push({ entry, path });
  }
  return out;
}

/** Options of {@link GitManifestSource}. */
export interface GitManifestSourceOptions {
  /** Parsed manifest sets kept in memory (default 512). */
  readonly maxParsed?: number;
  /** How Helm and Kustomize sources are rendered (the programs, their limits). */
  readonly tools?: ToolRendererOptions;
  /** How `chart` sources reach Helm repositories (credentials, CA bundles, caches). */
  readonly charts?: HelmChartSourceOptions;
  /** Where `oci://` sources and charts from Helm OCI registries are read (unset: they fail). */
  readonly oci?: OciArtifacts;
}

/** The names of the files directly in the source's directory. */
function namesAt(tree: readonly TreeEntry[], root: string): string[] {
  const prefix = root === "" ? "" : `${root}/`;
  return tree
    .filter((e) => e.type === "blob" && e.path.startsWith(prefix) && !e.path.slice(prefix.length).includes("/"))
    .map((e) => e.path.slice(prefix.length));
}

/** Fails unless the source's directory exists in the tree. */
function requireRoot(tree: readonly TreeEntry[], source: ApplicationSource, root: string): void {
  if (root !== "" && !tree.some((e) => e.type === "tree" && e.path === root)) {
    throw new AppSetError(MANIFEST_ERROR, `${source.path ?? ""}: app path does not exist`);
  }
}

/** A source resolved to a commit and its tree. */
interface SourceAt {
  readonly app: Application;
  readonly source: ApplicationSource;
  readonly commit: string;
  readonly tree: readonly TreeEntry[];
  readonly root: string;
  readonly type: Exclude<SourceType, typeof SourceType.Plugin>;
  readonly options: ReadOptions;
}

/** The facts a render needs when none were given: no version, no API versions. */
const NO_FACTS: ClusterFacts = { kubeVersion: "", apiVersions: [] };

/** Reads Application sources from Git: plain directories parsed here, Helm and Kustomize rendered by their programs. */
export class GitManifestSource implements ManifestSource {
  private readonly parsed = new Map<string, { type: SourceType; objects: readonly KubeObject[] }>();
  private readonly renderer: ToolRenderer;
  private readonly charts: HelmChartSource;
  private readonly git: GitReader;

  constructor(
    git: GitReader,
    private readonly options: GitManifestSourceOptions = {},
  ) {
    this.git = options.oci === undefined ? git : withOciArtifacts(git, options.oci);
    this.renderer = new ToolRenderer(this.git, options.tools);
    const tools = options.tools ?? {};
    const program = { helm: tools.helm ?? "helm", timeoutMs: tools.timeoutMs ?? TOOL_TIMEOUT_MS, env: tools.env ?? {} };
    const charts = options.oci === undefined ? options.charts : { ...options.charts, oci: options.oci };
    this.charts = new HelmChartSource(this.renderer, program, charts);
  }

  /**
   * The commit (an OCI artifact's digest) a source's revision names; an OCI revision with the
   * project's credentials when the Application is given.
   */
  async revisionOf(source: ApplicationSource, revision?: string, options: ReadOptions = {}, app?: Application): Promise<string> {
    const oci = isOciSource(source.repoURL);
    if (oci && this.options.oci === undefined) throw new AppSetError(MANIFEST_ERROR, `OCI sources are not configured (${source.repoURL})`);
    if (options.refresh === true || options.hard === true) this.git.invalidate?.(source.repoURL);
    const target = revision ?? source.targetRevision ?? (oci ? "" : "HEAD");
    // An OCI revision is resolved with the project's credentials (Git's are looked up without it).
    return this.git.resolveRevision(source.repoURL, target, options.signal, oci && app !== undefined ? projectAccess(app) : undefined);
  }

  async read(app: Application, source: ApplicationSource, revision?: string, given: ReadOptions = {}): Promise<Manifests> {
    const options = await this.withRefRepos(source, given);
    // As Argo CD: an `oci://` source is an OCI artifact even when it names a chart.
    if (!isOciSource(source.repoURL) && source.chart !== undefined && source.chart !== "")
      return this.charts.read(app, { ...source, chart: source.chart }, revision, options);
    const { signal } = options;
    const commit = await this.revisionOf(source, revision, options, app);
    const root = sourceRoot(source.path);
    const tree = await this.git.listTree(source.repoURL, commit, signal);
    requireRoot(tree, source, root);
    const type = sourceTypeOf(source, namesAt(tree, root));
    if (type === SourceType.Plugin) throw new AppSetError(MANIFEST_ERROR, "config management plugin sources are not supported");
    return this.manifestsAt({ app, source, commit, tree, root, type, options });
  }

  /**
   * The options with the repositories of the ref sources the Helm source names resolved to commits
   * and listed (refused as Argo CD refuses a missing ref or a chart ref).
   */
  private async withRefRepos(source: ApplicationSource, options: ReadOptions): Promise<ReadOptions> {
    if (options.refSources === undefined) return options;
    const refRepos = new Map<string, RefRepo>();
    for (const [name, target] of referencedTargets(source.helm, options.refSources)) {
      const commit = await this.revisionOf({ repoURL: target.repoURL, targetRevision: target.targetRevision }, undefined, options);
      const tree = await this.git.listTree(target.repoURL, commit, options.signal);
      refRepos.set(name, { repoURL: target.repoURL, commit, tree });
    }
    return { ...options, refRepos };
  }

  /** The manifests of a resolved source, from the cache or read and kept. */
  private async manifestsAt(at: SourceAt): Promise<Manifests> {
    const { app, source, commit, tree, root, type, options } = at;
    const instanceName = options.instanceName ?? app.metadata.name ?? "";
    const facts = await factsFor(type, options);
    const destination = app.spec.destination.namespace ?? "";
    const refs = refCommits(options.refRepos);
    const key = JSON.stringify([source.repoURL, commit, root, type, sourceOptions(source), instanceName, destination, facts, refs]);
    const cached = this.parsed.get(key);
    if (cached !== undefined) return { revision: commit, objects: cached.objects, sourceType: cached.type };
    const signal = options.signal;
    const objects =
      type === SourceType.Directory
        ? await this.readDirectory(source, commit, tree, signal)
        : await this.renderer.render({
            ...{ type, app, source, repoURL: source.repoURL, commit, tree, root, instanceName, facts, signal },
            refs: options.refRepos,
          });
    if (this.parsed.size >= (this.options.maxParsed ?? 512)) {
      const oldest = this.parsed.keys().next();
      if (oldest.done !== true) this.parsed.delete(oldest.value);
    }
    this.parsed.set(key, { type, objects });
    return { revision: commit, objects, sourceType: type };
  }

  private async readDirectory(
    source: ApplicationSource,
    commit: string,
    tree: readonly TreeEntry[],
    signal?: AbortSignal,
  ): Promise<KubeObject[]> {
    if (source.directory?.jsonnet !== undefined && Object.keys(source.directory.jsonnet).length > 0) {
      throw new AppSetError(MANIFEST_ERROR, "Jsonnet directory options are not supported; only plain YAML/JSON, Helm and Kustomize");
    }
    const jsonnet = selectEntries(tree, source, JSONNET_EXT)[0];
    if (jsonnet !== undefined) {
      throw new AppSetError(
        MANIFEST_ERROR,
        `Jsonnet sources are not supported (${jsonnet.path}); only plain YAML/JSON, Helm and Kustomize`,
      );
    }
    const selected = selectEntries(tree, source);
    const blobs = await this.git.readBlobs(
      source.repoURL,
      commit,
      selected.map((s) => s.entry),
      signal,
    );
    const files: SourceFile[] = selected.map((s, i) => ({ path: s.path, content: blobs[i]?.toString("utf8") ?? "" }));
    return parseDirectory(files, source.directory);
  }
}

/** The project an Application reads its repositories for (its scoped credentials are eligible). */
function projectAccess(app: Application): RepoAccess {
  const project = app.spec.project;
  return project === undefined || project === "" ? {} : { project };
}

/** The cluster's facts when a tool renders the source. */
async function factsFor(type: SourceType, options: ReadOptions): Promise<ClusterFacts> {
  if (type === SourceType.Directory || options.cluster === undefined) return NO_FACTS;
  return options.cluster();
}

/** The options that change what a source renders to. */
function sourceOptions(source: ApplicationSource): unknown {
  return [source.directory ?? null, source.helm ?? null, source.kustomize ?? null];
}
