/**
 * OCI Application sources (`repoURL: oci://registry/repository`, docs/sync-engine.md#sources), read
 * as Argo CD's repo-server reads them: `targetRevision` (a tag, a digest or a semver constraint)
 * is resolved to the artifact's manifest digest, which becomes the source's revision (in
 * `status.sync.revision` and the operation's); the artifact's content layer is read in memory
 * (src/oci: no path or link may leave it, and its size is bounded) and then served as if it were
 * a commit's tree, so `path`, the source type (Directory, Helm, Kustomize) and the render are those
 * of a Git source. An artifact pushed by `helm push` has its chart directory as the root.
 *
 * {@link withOciArtifacts} puts this in front of a {@link GitReader}: `oci://` URLs are answered
 * from the artifacts, every other URL goes to Git. Errors carry Argo CD's words and are manifest
 * errors (the Application's ComparisonError).
 *
 * I/O boundary: the injected artifact reader (the registry behind it).
 */
import { posix } from "node:path";
import { remember } from "../bounded-map.js";
import { AppSetError, errorMessage } from "../errors.js";
import type { GitReader, RepoAccess, TreeEntry } from "../git/index.js";
import type { ArtifactTree } from "../oci/index.js";
import { MANIFEST_ERROR } from "./manifests.js";

/** How one artifact read goes: on whose behalf, with which repository's credentials, until when. */
export interface OciArtifactRead {
  readonly access: RepoAccess;
  /** The URL whose credentials apply when not the repository's own (a Helm OCI registry's). */
  readonly credentialsURL?: string | undefined;
  readonly signal?: AbortSignal | undefined;
}

/** Reads OCI artifacts (the repo-server's `ResolveRevision`, `Extract` and `GetTags`). */
export interface OciArtifacts {
  /** The artifact `revision` names in `repoURL`, with its manifest digest. */
  artifactAt(repoURL: string, revision: string, opts: OciArtifactRead): Promise<{ digest: string; tree: ArtifactTree }>;
  /** The repository's tags. */
  tags(repoURL: string, opts: OciArtifactRead): Promise<string[]>;
}

/** Whether a source is an OCI artifact: Argo CD's `IsOCI`, a `repoURL` starting with `oci://` (as written). */
export function isOciSource(repoURL: string): boolean {
  return repoURL.startsWith("oci://");
}

const DIR_MODE = "040000";
const FILE_MODE = "100644";
const LINK_MODE = "120000";

/**
 * The entries of an artifact as a Git tree lists them: its directories, its files, and its links
 * (blobs whose content is the target, relative to the link's directory). Sorted by path. Pure.
 */
export function artifactEntries(tree: ArtifactTree): TreeEntry[] {
  const entry = (path: string, type: "blob" | "tree", mode: string): TreeEntry => ({ path, type, mode, oid: "" });
  const out = [
    ...[...tree.dirs].map((p) => entry(p, "tree", DIR_MODE)),
    ...[...tree.files.keys()].map((p) => entry(p, "blob", FILE_MODE)),
    ...[...tree.links.keys()].map((p) => entry(p, "blob", LINK_MODE)),
  ];
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** The content of an artifact's entry: a file's bytes, or a link's target relative to its directory. Pure. */
export function artifactBlob(tree: ArtifactTree, path: string): Buffer {
  const file = tree.files.get(path);
  if (file !== undefined) return file;
  const target = tree.links.get(path);
  if (target === undefined) throw new AppSetError(MANIFEST_ERROR, `${path}: no such file in the OCI artifact`);
  const relative = posix.relative(posix.dirname(path), target);
  return Buffer.from(relative === "" ? "." : relative);
}

/** Artifacts kept between resolving a revision and reading its tree. */
const KEPT_ARTIFACTS = 16;

/** A Git reader that answers `oci://` URLs from OCI artifacts (see the module comment). */
class OciAwareReader implements GitReader {
  private readonly trees = new Map<string, ArtifactTree>();

  constructor(
    private readonly git: GitReader,
    private readonly oci: OciArtifacts,
  ) {}

  async resolveRevision(repoURL: string, revision: string, signal?: AbortSignal, access?: RepoAccess): Promise<string> {
    if (!isOciSource(repoURL)) return this.git.resolveRevision(repoURL, revision, signal, access);
    const got = await this.read(repoURL, revision, access ?? {}, signal);
    return got.digest;
  }

  async listTree(repoURL: string, commit: string, signal?: AbortSignal, access?: RepoAccess): Promise<readonly TreeEntry[]> {
    if (!isOciSource(repoURL)) return this.git.listTree(repoURL, commit, signal, access);
    return artifactEntries(await this.treeAt(repoURL, commit, access, signal));
  }

  // eslint-disable-next-line max-params -- the GitReader port's signature
  async readBlobs(
    repoURL: string,
    commit: string,
    entries: readonly TreeEntry[],
    signal?: AbortSignal,
    access?: RepoAccess,
  ): Promise<Buffer[]> {
    if (!isOciSource(repoURL)) return this.git.readBlobs(repoURL, commit, entries, signal, access);
    const tree = await this.treeAt(repoURL, commit, access, signal);
    return entries.map((e) => artifactBlob(tree, e.path));
  }

  invalidate(repoURL: string): void {
    if (!isOciSource(repoURL)) this.git.invalidate?.(repoURL);
  }

  /** The tree of a resolved digest: kept from its resolution, else read again. */
  private async treeAt(repoURL: string, digest: string, access: RepoAccess | undefined, signal?: AbortSignal): Promise<ArtifactTree> {
    const kept = this.trees.get(`${repoURL}@${digest}`);
    if (kept !== undefined) return kept;
    return (await this.read(repoURL, digest, access ?? {}, signal)).tree;
  }

  private async read(
    repoURL: string,
    revision: string,
    access: RepoAccess,
    signal?: AbortSignal,
  ): Promise<{ digest: string; tree: ArtifactTree }> {
    let got;
    try {
      got = await this.oci.artifactAt(repoURL, revision, { access, signal });
    } catch (err) {
      if (signal?.aborted === true || (err instanceof AppSetError && err.reason === MANIFEST_ERROR)) throw err;
      throw new AppSetError(MANIFEST_ERROR, errorMessage(err), { cause: err });
    }
    remember(this.trees, `${repoURL}@${got.digest}`, got.tree, KEPT_ARTIFACTS);
    return got;
  }
}

/** `git` with `oci://` URLs answered from `oci` instead (see the module comment). */
export function withOciArtifacts(git: GitReader, oci: OciArtifacts): GitReader {
  return new OciAwareReader(git, oci);
}
