/**
 * Reads OCI artifacts for the OCI generator, as Argo CD's repo-server serves `GetOciDirectories`
 * and `GetOciFiles`: the revision is resolved to a manifest digest (a tag or digest as written;
 * else, for a semver constraint, the highest matching tag, `_` read as `+`), the manifest's content
 * layer is read into memory ({@link readArtifactTree}), and the tree is kept by digest (bounded in
 * entries and bytes) so a tag that does not move costs one manifest request. Credentials come from
 * the `oci` repository Secrets through the same lookup as Git's (project scoping included); the
 * CA bundle from `argocd-tls-certs-cm` by registry host. Errors carry Argo CD's words, with its
 * repo-server's gRPC prefix, so conditions read as they do under Argo CD.
 *
 * I/O boundary: the registry (through {@link RegistryClient}).
 */
import { createGunzip } from "node:zlib";
import { Readable } from "node:stream";
import { SizedMemo } from "../bounded-map.js";
import { errorMessage } from "../errors.js";
import { caBundleFile, type CredentialsLookup, type RepoAccess } from "../git/index.js";
import { helmAccess } from "../syncwaves/helm-repo/access.js";
import { isVersion, maxVersion, parseConstraint } from "../syncwaves/helm-repo/versions.js";
import { artifactDirectories, artifactFiles, OciLayerError, readArtifactTree, type ArtifactTree } from "./artifact-tree.js";
import { contentLayer, DEFAULT_OCI_LAYER_MEDIA_TYPES, parseManifest } from "./manifest.js";
import { parseOciRepository, type OciRepository } from "./reference.js";
import { RegistryClient, type RegistryAccess } from "./registry-client.js";

/** How a read goes: on whose behalf, and whether cached revisions may be used. */
export interface OciReadOptions {
  readonly access: RepoAccess;
  /**
   * The URL whose repository credentials apply, when not the repository's own: a Helm OCI
   * registry's (`registry.example.com/charts`) for a chart in it.
   */
  readonly credentialsURL?: string | undefined;
  readonly signal?: AbortSignal | undefined;
}

/** Reads the directories and files of OCI artifacts. */
export interface OciReader {
  /** The artifact's directories, in walk order. */
  directories(repoURL: string, revision: string, opts: OciReadOptions): Promise<string[]>;
  /** The artifact's files matching a doublestar pattern, keyed by path. */
  files(repoURL: string, revision: string, pattern: string, opts: OciReadOptions): Promise<Map<string, Buffer>>;
}

/** What the reader is configured with. */
export interface OciReaderOptions {
  readonly credentials: CredentialsLookup;
  /** Where `argocd-tls-certs-cm` is mounted (CA bundles named by host). */
  readonly tlsCertsDir?: string;
  /** The process environment (the proxy variables). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Time limit of one registry request, in ms. */
  readonly timeoutMs: number;
  /** Most bytes an artifact's content layer may hold unpacked (and compressed). */
  readonly maxArtifactBytes: number;
  /** The setting that raises it (named in the error). */
  readonly maxArtifactSetting: string;
  /** The layer media types read; default Argo CD's. */
  readonly layerMediaTypes?: readonly string[];
  /** List directories whose names start with `.` (Argo CD's `--include-hidden-directories`). */
  readonly includeHiddenDirectories?: boolean;
  /** A client per repository; default {@link RegistryClient}. */
  readonly newClient?: (
    repo: OciRepository,
    access: RegistryAccess,
    timeoutMs: number,
  ) => Pick<RegistryClient, "manifest" | "tags" | "blob">;
}

/** Artifacts kept in memory. */
const MAX_CACHED_ARTIFACTS = 16;

/** The error of a repo-server call, as the generator receives it over gRPC. */
class RpcError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(`rpc error: code = Internal desc = ${message}`, options);
    this.name = "RpcError";
  }
}

/** Decompresses when the layer is gzip, leaving the bytes as they are otherwise. */
function layerStream(bytes: Buffer, gzip: boolean): AsyncIterable<Uint8Array> {
  const raw = Readable.from([bytes]);
  return gzip ? raw.pipe(createGunzip()) : raw;
}

/** For a chart, its single top directory becomes the root (as Argo CD unpacks a chart). */
function chartRoot(tree: ArtifactTree): ArtifactTree {
  const top = new Set([...tree.dirs, ...tree.files.keys(), ...tree.links.keys()].map((p) => p.split("/")[0]!));
  const only = [...top][0];
  if (top.size !== 1 || only === undefined || !tree.dirs.has(only))
    throw new OciLayerError(`expected 1 directory, found ${String(top.size)}`);
  const strip = (p: string): string => p.slice(only.length + 1);
  const inside = (p: string): boolean => p.startsWith(`${only}/`);
  return {
    dirs: new Set([...tree.dirs].filter(inside).map(strip)),
    files: new Map([...tree.files].filter(([p]) => inside(p)).map(([p, b]) => [strip(p), b])),
    links: new Map([...tree.links].filter(([p]) => inside(p)).map(([p, t]) => [strip(p), inside(t) ? strip(t) : t])),
  };
}

function treeBytes(tree: ArtifactTree): number {
  let n = 0;
  for (const b of tree.files.values()) n += b.length;
  return n;
}

/** The reader (see the module comment). */
export class RegistryOciReader implements OciReader {
  private readonly trees: SizedMemo<ArtifactTree>;

  constructor(private readonly opts: OciReaderOptions) {
    this.trees = new SizedMemo({ maxEntries: MAX_CACHED_ARTIFACTS, maxSize: opts.maxArtifactBytes * 2, sizeOf: treeBytes });
  }

  private async client(
    repoURL: string,
    opts: OciReadOptions,
  ): Promise<{ repo: OciRepository; client: Pick<RegistryClient, "manifest" | "tags" | "blob"> }> {
    let repo;
    try {
      repo = parseOciRepository(repoURL);
    } catch (err) {
      throw new Error(`failed to initialize oci client: ${errorMessage(err)}`, { cause: err });
    }
    const creds = await this.opts.credentials(opts.credentialsURL ?? repoURL, opts.access.project);
    const plainHttp = creds?.insecureOCIForceHttp === true;
    const origin = `${plainHttp ? "http" : "https"}://${repo.registry}`;
    const caFile = plainHttp ? undefined : await caBundleFile(this.opts.tlsCertsDir, origin);
    const registryAccess: RegistryAccess = { ...helmAccess(origin, creds, caFile, this.opts.env), plainHttp };
    const make = this.opts.newClient ?? ((r, a, t) => new RegistryClient(r, { access: a, timeoutMs: t }));
    return { repo, client: make(repo, registryAccess, this.opts.timeoutMs) };
  }

  /** The manifest digest a revision names (see the module comment). */
  private async resolve(
    client: Pick<RegistryClient, "manifest" | "tags">,
    revision: string,
    signal?: AbortSignal,
  ): Promise<{ digest: string; text: string }> {
    const wrap = (err: unknown): Error =>
      new Error(`failed to resolve revision ${JSON.stringify(revision)}: ${errorMessage(err)}`, { cause: err });
    try {
      return await client.manifest(revision, signal);
    } catch (err) {
      if (!isConstraint(revision)) throw wrap(new Error(`cannot get digest for revision ${revision}: ${errorMessage(err)}`));
    }
    let tags;
    try {
      tags = await client.tags(signal);
    } catch (err) {
      throw wrap(new Error(`error fetching tags: failed to get tags: ${errorMessage(err)}`, { cause: err }));
    }
    // Semver reads `_` as `+` (OCI tags cannot hold `+`); the tag is then fetched as it was pushed.
    const pushed = new Map(tags.map((t) => [t.replaceAll("_", "+"), t]));
    let version;
    try {
      version = maxVersion(revision, [...pushed.keys()]);
    } catch (err) {
      throw wrap(new Error(`no version for constraints: ${errorMessage(err)}`, { cause: err }));
    }
    const tag = pushed.get(version) ?? version;
    try {
      return await client.manifest(tag, signal);
    } catch (err) {
      throw wrap(new Error(`cannot get digest for revision ${tag}: ${errorMessage(err)}`, { cause: err }));
    }
  }

  /**
   * The artifact a revision names and its manifest digest, as the repo-server reads an OCI
   * Application source: errors carry Argo CD's words without the gRPC frame (`failed to initialize
   * oci client: …`, `failed to resolve revision "…": …`, the layer's own).
   */
  artifactAt(repoURL: string, revision: string, opts: OciReadOptions): Promise<{ digest: string; tree: ArtifactTree }> {
    return this.fetch(repoURL, revision, opts, { resolve: (err) => err, extract: (err) => err });
  }

  /** The repository's tags, as the registry lists them. */
  async tags(repoURL: string, opts: OciReadOptions): Promise<string[]> {
    const { client } = await this.client(repoURL, opts);
    return client.tags(opts.signal);
  }

  /** The artifact a revision names, with the generator's (gRPC) errors. */
  private artifact(repoURL: string, revision: string, opts: OciReadOptions): Promise<{ digest: string; tree: ArtifactTree }> {
    return this.fetch(repoURL, revision, opts, {
      resolve: (err) => new RpcError(`unable to resolve OCI revision ${revision}: ${errorMessage(err)}`, { cause: err }),
      extract: (err, digest) =>
        new RpcError(`unable to extract OCI artifact ${repoURL} with revision ${digest}: ${errorMessage(err)}`, { cause: err }),
    });
  }

  /** The artifact a revision names, from the memo or the registry; `wrap` words a failure of each step. */
  private async fetch(
    repoURL: string,
    revision: string,
    opts: OciReadOptions,
    wrap: { resolve(err: unknown): unknown; extract(err: unknown, digest: string): unknown },
  ): Promise<{ digest: string; tree: ArtifactTree }> {
    let resolved;
    let client;
    try {
      client = await this.client(repoURL, opts);
      resolved = await this.resolve(client.client, revision, opts.signal);
    } catch (err) {
      throw wrap.resolve(err);
    }
    const key = `${repoURL}@${resolved.digest}`;
    const kept = this.trees.get(key);
    if (kept !== undefined) return { digest: resolved.digest, tree: kept };
    try {
      const tree = await this.extract(client.client, resolved, opts.signal);
      this.trees.set(key, tree);
      return { digest: resolved.digest, tree };
    } catch (err) {
      throw wrap.extract(err, resolved.digest);
    }
  }

  private async extract(
    client: Pick<RegistryClient, "blob">,
    manifest: { digest: string; text: string },
    signal?: AbortSignal,
  ): Promise<ArtifactTree> {
    const chosen = contentLayer(parseManifest(manifest.text, manifest.digest), this.opts.layerMediaTypes ?? DEFAULT_OCI_LAYER_MEDIA_TYPES);
    const limits = { maxBytes: this.opts.maxArtifactBytes, setting: this.opts.maxArtifactSetting };
    if (chosen.layer.size > limits.maxBytes)
      throw new OciLayerError(
        `the artifact's content layer has ${String(chosen.layer.size)} bytes, more than ${String(limits.maxBytes)}; raise ${limits.setting} to read it`,
      );
    const bytes = await client.blob(chosen.layer.digest, chosen.layer.size, signal);
    let tree;
    try {
      tree = await readArtifactTree(layerStream(bytes, chosen.gzip), limits);
    } catch (err) {
      throw new Error(
        `cannot extract contents of oci image with revision ${manifest.digest}: could not decompress layer: ${errorMessage(err)}`,
        { cause: err },
      );
    }
    return chosen.helmChart ? chartRoot(tree) : tree;
  }

  async directories(repoURL: string, revision: string, opts: OciReadOptions): Promise<string[]> {
    const { tree } = await this.artifact(repoURL, revision, opts);
    return artifactDirectories(tree, this.opts.includeHiddenDirectories === true);
  }

  async files(repoURL: string, revision: string, pattern: string, opts: OciReadOptions): Promise<Map<string, Buffer>> {
    const { digest, tree } = await this.artifact(repoURL, revision, opts);
    try {
      return artifactFiles(tree, pattern);
    } catch (err) {
      throw new RpcError(
        `unable to match files. repo ${repoURL} with revision ${digest} pattern ${pattern === "" ? "." : pattern}: ${errorMessage(err)}`,
        { cause: err },
      );
    }
  }
}

/** Whether a revision is a semver constraint (Argo CD's `versions.IsConstraint`): not a plain version, but a constraint. */
function isConstraint(revision: string): boolean {
  return !isVersion(revision) && parseConstraint(revision) !== undefined;
}
