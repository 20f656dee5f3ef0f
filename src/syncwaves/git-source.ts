/**
 * The Git-backed {@link ManifestSource}: an Application's `repoURL`, `targetRevision` (branch, tag,
 * `HEAD` or commit SHA) and `path`, read through the same {@link GitReader} (and so the same cache
 * by commit) the Git generator uses. The revision is resolved to a commit, the commit's tree is
 * listed, the files the directory options select are read in one batch and parsed as plain
 * YAML/JSON manifests. Parsed manifests are kept per (repository, commit, path, options), so many
 * Applications on one commit parse it once.
 *
 * I/O boundary: the injected GitReader (the real `git` program behind it).
 */
import type { Application, ApplicationSource } from "../api/index.js";
import { AppSetError } from "../errors.js";
import type { GitReader, TreeEntry } from "../git/index.js";
import type { KubeObject } from "../kube/index.js";
import {
  MANIFEST_ERROR,
  parseDirectory,
  selectsFile,
  type ManifestSource,
  type Manifests,
  type ReadOptions,
  type SourceFile,
} from "./manifests.js";

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
export function selectEntries(tree: readonly TreeEntry[], source: ApplicationSource): { entry: TreeEntry; path: string }[] {
  const root = sourceRoot(source.path);
  if (root !== "" && !tree.some((e) => e.type === "tree" && e.path === root)) {
    throw new AppSetError(MANIFEST_ERROR, `${source.path ?? ""}: app path does not exist`);
  }
  const prefix = root === "" ? "" : `${root}/`;
  const out: { entry: TreeEntry; path: string }[] = [];
  for (const entry of tree) {
    if (entry.type !== "blob" || entry.mode === SYMLINK_MODE || !entry.path.startsWith(prefix)) continue;
    const path = entry.path.slice(prefix.length);
    if (selectsFile(path, source.directory)) out.push({ entry, path });
  }
  return out;
}

/** Options of {@link GitManifestSource}. */
export interface GitManifestSourceOptions {
  /** Parsed manifest sets kept in memory (default 512). */
  readonly maxParsed?: number;
}

/** Reads Application sources from Git. */
export class GitManifestSource implements ManifestSource {
  private readonly parsed = new Map<string, readonly KubeObject[]>();

  constructor(
    private readonly git: GitReader,
    private readonly options: GitManifestSourceOptions = {},
  ) {}

  async read(_app: Application, source: ApplicationSource, revision?: string, options: ReadOptions = {}): Promise<Manifests> {
    rejectUnsupported(source);
    const { signal } = options;
    if (options.refresh === true || options.hard === true) this.git.invalidate?.(source.repoURL);
    const commit = await this.git.resolveRevision(source.repoURL, revision ?? source.targetRevision ?? "HEAD", signal);
    const key = JSON.stringify([source.repoURL, commit, sourceRoot(source.path), source.directory ?? null]);
    const cached = this.parsed.get(key);
    if (cached !== undefined) return { revision: commit, objects: cached };
    const tree = await this.git.listTree(source.repoURL, commit, signal);
    const selected = selectEntries(tree, source);
    const blobs = await this.git.readBlobs(
      source.repoURL,
      commit,
      selected.map((s) => s.entry),
      signal,
    );
    const files: SourceFile[] = selected.map((s, i) => ({ path: s.path, content: blobs[i]?.toString("utf8") ?? "" }));
    const objects = parseDirectory(files, source.directory);
    if (this.parsed.size >= (this.options.maxParsed ?? 512)) {
      const oldest = this.parsed.keys().next();
      if (oldest.done !== true) this.parsed.delete(oldest.value);
    }
    this.parsed.set(key, objects);
    return { revision: commit, objects };
  }
}

/** Only directory sources are rendered: Helm, Kustomize, plugin and chart sources fail clearly. */
function rejectUnsupported(source: ApplicationSource): void {
  const kind =
    source.chart !== undefined
      ? "Helm chart"
      : source.helm
        ? "Helm"
        : source.kustomize
          ? "Kustomize"
          : source.plugin
            ? "plugin"
            : undefined;
  if (kind !== undefined)
    throw new AppSetError(MANIFEST_ERROR, `${kind} sources are not supported; only directory sources of plain YAML/JSON`);
  if (source.directory?.jsonnet !== undefined && Object.keys(source.directory.jsonnet).length > 0) {
    throw new AppSetError(MANIFEST_ERROR, "Jsonnet directory options are not supported; only plain YAML/JSON");
  }
}
