/**
 * A Git reader over the real `git` program, for the Git generator now and Application sources
 * later. A revision is first resolved to a commit with one `git ls-remote` (the only network
 * round-trip when nothing changed); the commit is then fetched shallowly (`--depth 1`) into a bare
 * cache repository per repository URL, and what was read from it (the tree, the blobs) is kept in
 * memory by commit and object id. What `ls-remote` returned is kept for a few seconds
 * (`revisionCacheMs`), and callers asking at once share one `ls-remote`.
 *
 * Commands that write a cache repository (init, fetch) run one at a time per repository, in this
 * process (a queue) and across processes sharing the cache directory (a lock file, `lock.ts`).
 * Every git command runs within `timeoutMs` and the caller's signal, its process group killed when
 * either ends it.
 *
 * Every read names on whose behalf it is made ({@link RepoAccess}: the project whose scoped
 * credentials apply). Cached content is only served to a caller whose credentials have already
 * been accepted by the remote for that repository (a successful `ls-remote` or fetch); otherwise
 * the commit is fetched again with the caller's credentials, so a project without access cannot
 * read what another project's credentials brought into the cache, even by commit SHA.
 */
import { createHash } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { remember, SizedMemo } from "../bounded-map.js";
import { SystemClock, type Clock } from "../clock/index.js";
import { AppSetError } from "../errors.js";
import { noCredentials, type CredentialsLookup, type RepoAccess, type RepoCredentials } from "./credentials.js";
import { abortedError, GitCommandError, redact } from "./exec.js";
import { cacheFolderName, cacheKey } from "./cache-dir.js";
import { withRepoLock } from "./lock.js";
import { RevisionCache } from "./revision-cache.js";
import { parseBatch, parseLsRemote, parseLsTree, pickRef, SHA, type TreeEntry } from "./git-output.js";
import { groupByOrigin, parseGitmodules, resolveSubmoduleURL, withoutOrigin } from "./submodules.js";
import { GitRunner } from "./runner.js";
import { NO_RETRY, withGitRetries } from "./retry.js";
import { assertSafeTree } from "./tree-paths.js";
import { allowedProtocols, locateRepository } from "./locate.js";
import {
  DEFAULT_BLOB_CACHE_BYTES,
  DEFAULT_REVISION_CACHE_MS,
  REVISION_NOT_FOUND_REASON,
  type GitReader,
  type GitRepoReaderOptions,
  type GitStats,
} from "./reader-types.js";
import { sameGitOrigin, sameGitURL } from "./url.js";

/**
 * The configuration of every fetch: protocol v2, and every object received checked by git's fsck
 * (a tree entry named `..`, `.` or `.git`, a malformed object: the fetch fails), except the
 * cosmetic faults of old commits' author lines, which real repositories carry and which cannot
 * reach a path.
 */
const FETCH_CONFIG: readonly string[] = [
  "-c",
  "protocol.version=2",
  "-c",
  "fetch.fsckObjects=true",
  ...[
    "badTimezone",
    "badDate",
    "badDateOverflow",
    "badEmail",
    "badName",
    "missingEmail",
    "missingSpaceBeforeDate",
    "missingSpaceBeforeEmail",
    "zeroPaddedDate",
  ].flatMap((id) => ["-c", `fetch.fsck.${id}=ignore`]),
];

/** The default {@link GitReader}: `git` against real repositories, with a cache by commit. */
export class GitRepoReader implements GitReader {
  readonly stats: GitStats = { lsRemote: 0, lsRemoteCached: 0, fetch: 0, lsTree: 0, catFile: 0 };
  private readonly trees = new Map<string, readonly TreeEntry[]>();
  /** Submodule URL → the superproject URL whose credentials apply when it has none of its own. */
  private readonly submoduleParents = new Map<string, string>();
  private readonly blobs: SizedMemo<Buffer>;
  private readonly present = new Set<string>();
  private readonly locks = new Map<string, Promise<unknown>>();
  /** `repoURL \0 credentials fingerprint` the remote has accepted. */
  private readonly verified = new Set<string>();
  private readonly credentials: CredentialsLookup;
  private readonly clock: Clock;
  /** What `ls-remote` advertised, by `repoURL \0 credentials fingerprint`. */
  private readonly refs: RevisionCache<ReadonlyMap<string, string>>;
  private readonly runner: GitRunner;
  /** The cache directory's key (see `cacheKey`), read or made on first use. */
  private key: Promise<Buffer> | undefined;

  constructor(private readonly opts: GitRepoReaderOptions) {
    this.credentials = opts.credentials ?? noCredentials;
    this.clock = opts.clock ?? new SystemClock();
    this.refs = new RevisionCache({ clock: this.clock, ttlMs: opts.revisionCacheMs ?? DEFAULT_REVISION_CACHE_MS });
    const env = { ...opts.env, GIT_ALLOW_PROTOCOL: allowedProtocols(opts.localRepositories === true) };
    this.runner = new GitRunner({ ...opts, env, clock: this.clock });
    const maxBlobBytes = opts.maxBlobBytes ?? DEFAULT_BLOB_CACHE_BYTES;
    this.blobs = new SizedMemo({ maxEntries: opts.maxBlobs ?? 50_000, maxSize: maxBlobBytes, sizeOf: (b) => b.length });
  }

  async resolveRevision(url: string, revision: string, signal?: AbortSignal, access?: RepoAccess): Promise<string> {
    const repoURL = this.locate(url);
    const rev = revision.trim();
    if (SHA.test(rev)) return rev;
    const auth = await this.auth(repoURL, access);
    const refs = await this.remoteRefs(repoURL, auth, signal);
    const sha = pickRef(refs, rev);
    if (sha === undefined) {
      throw new AppSetError(REVISION_NOT_FOUND_REASON, `unable to resolve '${rev}' to a commit SHA in ${repoURL}`);
    }
    return sha;
  }

  invalidate(repoURL: string): void {
    this.refs.invalidate((url) => sameGitURL(url, repoURL));
  }

  async listTree(url: string, commit: string, signal?: AbortSignal, access?: RepoAccess): Promise<readonly TreeEntry[]> {
    const repoURL = this.locate(url);
    const key = `${repoURL}\u0000${commit}`;
    const dir = await this.ensureCommit(repoURL, commit, signal, access);
    const cached = this.trees.get(key);
    if (cached !== undefined) return cached;
    const out = await this.git(["ls-tree", "-r", "-t", "-z", "--full-tree", commit], signal, { cwd: dir });
    this.stats.lsTree++;
    let entries: readonly TreeEntry[] = parseLsTree(out);
    assertSafeTree(entries, commit);
    if (this.opts.submodules === true && entries.some((e) => e.type === "commit")) {
      entries = await this.withSubmodules({ repoURL, commit, entries, ...(access === undefined ? {} : { access }) }, signal);
    }
    remember(this.trees, key, entries, this.opts.maxTrees ?? 256);
    return entries;
  }

  /**
   * The tree with every submodule expanded (recursively): its path a directory holding the entries
   * of the commit it records, read from the URL `.gitmodules` gives (relative URLs resolved against
   * the superproject's), with that URL's credentials or else the superproject's.
   */
  private async withSubmodules(
    at: { repoURL: string; commit: string; entries: readonly TreeEntry[]; access?: RepoAccess },
    signal?: AbortSignal,
  ): Promise<TreeEntry[]> {
    const gitmodules = at.entries.find((e) => e.path === ".gitmodules" && e.type === "blob");
    const text =
      gitmodules === undefined ? "" : (await this.readBlobs(at.repoURL, at.commit, [gitmodules], signal, at.access))[0]!.toString("utf8");
    const modules = parseGitmodules(text);
    const out: TreeEntry[] = [];
    for (const e of at.entries) {
      if (e.type !== "commit") {
        out.push(e);
        continue;
      }
      const url = modules.get(e.path);
      if (url === undefined) {
        throw new GitCommandError(`failed to update submodules: no url found for submodule path '${e.path}' in .gitmodules`, undefined);
      }
      const subURL = resolveSubmoduleURL(at.repoURL, url);
      this.submoduleParents.set(subURL, at.repoURL);
      const sub = await this.listTree(subURL, e.oid, signal, at.access);
      out.push({ path: e.path, type: "tree", mode: "040000", oid: e.oid });
      for (const s of sub) out.push({ ...s, path: `${e.path}/${s.path}`, origin: s.origin ?? { repoURL: subURL, commit: e.oid } });
    }
    return out;
  }

  // eslint-disable-next-line max-params -- the port's trailing optional parameters keep existing callers working
  async readBlobs(
    url: string,
    commit: string,
    entries: readonly TreeEntry[],
    signal?: AbortSignal,
    access?: RepoAccess,
  ): Promise<Buffer[]> {
    // What this call read, kept here too: the cache may drop it (its byte budget) before the answer is built.
    const read = new Map<string, Buffer>();
    for (const e of entries) {
      const hit = this.blobs.get(e.oid);
      if (hit !== undefined) read.set(e.oid, hit);
    }
    const fromSubmodules = entries.filter((e) => e.origin !== undefined && !read.has(e.oid));
    for (const group of groupByOrigin(fromSubmodules)) {
      const got = await this.readBlobs(group.repoURL, group.commit, group.entries.map(withoutOrigin), signal, access);
      group.entries.forEach((e, i) => read.set(e.oid, got[i]!));
    }
    const dir = await this.ensureCommit(this.locate(url), commit, signal, access);
    const missing = [
      ...new Set(
        entries
          .filter((e) => e.origin === undefined)
          .map((e) => e.oid)
          .filter((oid) => !read.has(oid)),
      ),
    ];
    if (missing.length > 0) {
      const out = await this.git(["cat-file", "--batch"], signal, { cwd: dir, input: `${missing.join("\n")}\n` });
      this.stats.catFile++;
      for (const [oid, content] of parseBatch(out)) {
        read.set(oid, content);
        this.blobs.set(oid, content);
      }
    }
    return entries.map((e) => {
      const b = read.get(e.oid);
      if (b === undefined) throw new GitCommandError(`git cat-file: object ${e.oid} (${e.path}) missing`, undefined);
      return b;
    });
  }

  /**
   * The refs the remote advertises to these credentials: kept, shared with a caller asking at the
   * same time, or asked for with one `ls-remote`. Only a successful `ls-remote` with the same
   * credentials fills an entry, so serving it keeps the access check of a fresh one.
   */
  private async remoteRefs(repoURL: string, auth: RemoteAuth, signal?: AbortSignal): Promise<ReadonlyMap<string, string>> {
    const load = async (sig?: AbortSignal): Promise<ReadonlyMap<string, string>> => {
      const timeoutMs = shorterLimit(this.opts.timeoutMs, this.opts.lsRemoteTimeoutMs);
      const out = await withGitRetries(this.opts.lsRemoteRetry ?? NO_RETRY, this.clock, sig, () =>
        this.git(["ls-remote", "--", repoURL], sig, { auth, ...(timeoutMs === undefined ? {} : { timeoutMs }) }),
      );
      this.stats.lsRemote++;
      return parseLsRemote(out.toString("utf8"));
    };
    try {
      const got = await this.refs.get(repoURL, auth.key, load, signal);
      if (got.cached) this.stats.lsRemoteCached++;
      return got.value;
    } catch (err) {
      if (signal?.aborted === true && !(err instanceof GitCommandError)) throw abortedError("git ls-remote");
      throw err;
    }
  }

  /**
   * Makes sure `commit` is in the cache repository of `repoURL` and that the caller's credentials
   * were accepted by the remote (else fetches with them); returns that repository's path.
   */
  private async ensureCommit(repoURL: string, commit: string, signal?: AbortSignal, access?: RepoAccess): Promise<string> {
    const dir = await this.cachePath(repoURL);
    const key = `${repoURL}\u0000${commit}`;
    const auth = await this.auth(repoURL, access);
    if (this.present.has(key) && this.verified.has(auth.key)) return dir;
    await this.serialized(repoURL, () =>
      this.locked(repoURL, dir, signal, async (sig) => {
        await mkdir(dir, { recursive: true });
        await this.git(["init", "--bare", "--quiet", "."], sig, { cwd: dir });
        const has = await this.git(["cat-file", "-e", `${commit}^{commit}`], sig, { cwd: dir }).then(
          () => true,
          () => false,
        );
        if (!has || !this.verified.has(auth.key)) {
          await this.git([...FETCH_CONFIG, "fetch", "--quiet", "--depth", "1", "--no-tags", "--", repoURL, commit], sig, {
            cwd: dir,
            auth,
          });
          this.stats.fetch++;
        }
      }),
    );
    this.present.add(key);
    return dir;
  }

  /** Where git finds `repoURL` (see `locate.ts`). */
  private locate(repoURL: string): string {
    return locateRepository(repoURL, this.opts);
  }

  /**
   * The caller's credentials and the key under which the remote's acceptance of them is kept. A
   * submodule without credentials of its own borrows its superproject's only on the same scheme
   * and host: a `.gitmodules` naming another server never receives them.
   */
  private async auth(repoURL: string, access: RepoAccess | undefined): Promise<RemoteAuth> {
    const parent = this.submoduleParents.get(repoURL);
    const borrow = parent !== undefined && sameGitOrigin(parent, repoURL);
    const creds =
      (await this.credentials(repoURL, access?.project)) ?? (borrow ? await this.credentials(parent, access?.project) : undefined);
    const fingerprint = createHash("sha256")
      .update(JSON.stringify(creds ?? null))
      .digest("hex");
    return { creds, key: `${repoURL}\u0000${fingerprint}` };
  }

  private async cachePath(repoURL: string): Promise<string> {
    this.key ??= cacheKey(this.opts.cacheDir).catch((err: unknown) => {
      this.key = undefined;
      throw err;
    });
    return join(this.opts.cacheDir, cacheFolderName(await this.key, repoURL));
  }

  /** Runs `fn` holding the cross-process lock of the cache repository `dir` of `repoURL`. */
  private async locked<T>(
    repoURL: string,
    dir: string,
    signal: AbortSignal | undefined,
    fn: (signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    await mkdir(this.opts.cacheDir, { recursive: true });
    const what = `git cache lock (${redact(repoURL)})`;
    return withRepoLock(
      dir,
      {
        clock: this.clock,
        what,
        ...(signal === undefined ? {} : { signal }),
        ...(this.opts.timeoutMs === undefined ? {} : { timeoutMs: this.opts.timeoutMs }),
      },
      fn,
    );
  }

  private serialized<T>(repoURL: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.locks.get(repoURL) ?? Promise.resolve();
    const next = prev.then(fn, fn);
    const tail = next.catch(() => undefined);
    this.locks.set(repoURL, tail);
    void tail.then(() => {
      if (this.locks.get(repoURL) === tail) this.locks.delete(repoURL);
    });
    return next;
  }

  /** Runs git; with `at.auth`, authenticated, and on success the remote's acceptance is recorded. */
  private async git(
    args: string[],
    signal?: AbortSignal,
    at: { cwd?: string; input?: string; auth?: RemoteAuth; timeoutMs?: number } = {},
  ): Promise<Buffer> {
    const { auth, ...rest } = at;
    const out = await this.runner.run(args, signal, { ...rest, creds: auth?.creds });
    if (auth !== undefined) this.verified.add(auth.key);
    return out;
  }
}

/** The shorter of two time limits, where 0 or unset means none. */
export function shorterLimit(a: number | undefined, b: number | undefined): number | undefined {
  const set = [a, b].filter((ms): ms is number => ms !== undefined && ms > 0);
  return set.length === 0 ? undefined : Math.min(...set);
}

/** Credentials for one remote operation, and the key recording that the remote accepted them. */
interface RemoteAuth {
  readonly creds: RepoCredentials | undefined;
  readonly key: string;
}

export { parseBatch, parseLsRemote, parseLsTree, pickRef, type TreeEntry } from "./git-output.js";
export { HOST_KEY_HINT, tlsServerName } from "./host-access.js";
export { GITHUB_APP_REASON, type GitHubAppTokenRequest, type GitHubAppTokenSource } from "./runner.js";
export { isRelativeLocalPath } from "./url.js";
export { allowedProtocols, LOCAL_REPOSITORY_REASON } from "./locate.js";
export {
  DEFAULT_BLOB_CACHE_BYTES,
  DEFAULT_REVISION_CACHE_MS,
  REVISION_NOT_FOUND_REASON,
  type GitReader,
  type GitRepoReaderOptions,
  type GitStats,
} from "./reader-types.js";
