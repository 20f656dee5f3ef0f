/**
 * A commit's files written out to a fresh temporary directory, for the programs that read a
 * repository from disk (Helm, Kustomize). Each render gets its own copy, since Kustomize's edits
 * change the kustomization in place; the copy is removed after the render. Executables keep their
 * mode; submodules are not written.
 *
 * Nothing is written outside the copy (docs/security.md#repositories): every path is checked
 * segment by segment (the reader refuses a tree holding `..`, `.`, `.git` or empty segments, and
 * each path is checked again here) and proven inside the root before it is written; every file is
 * written before any symbolic link exists, so no write passes through a link; an entry below a
 * link is refused. Links are then resolved on disk, the chains they form included: one whose real
 * target leaves the copy fails the render with Argo CD's message (`repository contains
 * out-of-bounds symlinks. file: <path>`), and so does one whose target is a directory, which would
 * let a path that looks inside (`dir-link/../..`) reach outside.
 *
 * I/O boundary: the file system and the injected GitReader.
 */
import { cp, lstat, mkdir, mkdtemp, readdir, readlink, realpath, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { AppSetError } from "../../errors.js";
import type { GitReader, TreeEntry } from "../../git/index.js";
import { unsafeSegment } from "../../git/tree-paths.js";
import { MANIFEST_ERROR } from "../manifests.js";

/** A written-out commit. */
export interface Workspace {
  /** The directory that holds the repository's root. */
  readonly dir: string;
  /** A directory beside it for the render's own files (inline values, Helm's home). */
  readonly scratch: string;
  /** Removes both. */
  dispose(): Promise<void>;
}

const SYMLINK = "120000";
/** Links followed when resolving a dangling one, as the kernel's own limit (a longer chain is refused). */
const MAX_LINK_HOPS = 40;
const EXECUTABLE = "100755";

/** What a workspace holds: a repository's commit or an unpacked chart (the wording of Argo CD's messages). */
export type WorkspaceKind = "repository" | "chart";

/** Argo CD's refusal of a link whose target leaves the workspace. */
export function outOfBoundsLink(kind: WorkspaceKind, path: string): AppSetError {
  return new AppSetError(MANIFEST_ERROR, `${kind} contains out-of-bounds symlinks. file: ${path}`);
}

/** The refusal of a link to a directory. */
export function directoryLink(kind: WorkspaceKind, path: string): AppSetError {
  return new AppSetError(MANIFEST_ERROR, `${kind} contains a symlink to a directory, which is not supported. file: ${path}`);
}

/** `path` joined onto `root`, or a refusal when the result would not be strictly inside it. */
export function insidePath(root: string, path: string): string {
  const why = unsafeSegment(path);
  const file = resolve(root, path);
  if (why !== undefined || !file.startsWith(root + sep)) {
    throw new AppSetError(
      MANIFEST_ERROR,
      `refusing to write ${JSON.stringify(path)} outside the repository: it has ${why ?? "an escaping path"}`,
    );
  }
  return file;
}

/** The first link among `links` that is a proper ancestor of `path`, if any. */
function linkAncestor(path: string, links: ReadonlySet<string>): string | undefined {
  for (let i = path.indexOf("/"); i >= 0; i = path.indexOf("/", i + 1)) {
    const prefix = path.slice(0, i);
    if (links.has(prefix)) return prefix;
  }
  return undefined;
}

/** Which commit to write out. */
export interface WorkspaceInput {
  readonly git: GitReader;
  readonly repoURL: string;
  readonly commit: string;
  readonly tree: readonly TreeEntry[];
  readonly signal?: AbortSignal | undefined;
}

/** A fresh base directory with `repo/` and `scratch/`, removed again when `fill` fails. */
async function freshWorkspace(fill: (dir: string) => Promise<void>): Promise<Workspace> {
  const base = await mkdtemp(join(tmpdir(), "appset-render-"));
  const dir = join(base, "repo");
  const scratch = join(base, "scratch");
  const dispose = (): Promise<void> => rm(base, { recursive: true, force: true });
  try {
    await mkdir(scratch);
    await fill(dir);
  } catch (err) {
    await dispose();
    throw err;
  }
  return { dir, scratch, dispose };
}

/** Writes the blobs of the commit's tree to a new temporary directory. */
export async function writeWorkspace({ git, repoURL, commit, tree, signal }: WorkspaceInput): Promise<Workspace> {
  const blobs = tree.filter((e) => e.type === "blob");
  refuseEntriesBelowLinks(tree, "repository");
  const contents = await git.readBlobs(repoURL, commit, blobs, signal);
  return freshWorkspace((dir) => writeTree({ dir, tree, contents, kind: "repository" }));
}

/** Fails when an entry lies below a link (writing it would pass through the link). */
function refuseEntriesBelowLinks(tree: readonly TreeEntry[], kind: WorkspaceKind): void {
  const links = new Set(tree.filter((e) => e.type === "blob" && e.mode === SYMLINK).map((e) => e.path));
  for (const e of tree) {
    const parent = linkAncestor(e.path, links);
    if (parent !== undefined) throw directoryLink(kind, parent);
  }
}

/** A tree to write out: its entries, and the content of its blobs in their order. */
export interface TreeOnDisk {
  /** A directory that does not exist yet (made here). */
  readonly dir: string;
  readonly tree: readonly TreeEntry[];
  /** The content of each blob of `tree`, in order (a link's is its target). */
  readonly contents: readonly Buffer[];
  readonly kind: WorkspaceKind;
}

/**
 * Writes a tree under `dir` with the checks of the module comment: paths proven inside, files
 * before links, links resolved and bounded afterwards.
 */
export async function writeTree({ dir, tree, contents, kind }: TreeOnDisk): Promise<void> {
  refuseEntriesBelowLinks(tree, kind);
  const blobs = tree.filter((e) => e.type === "blob");
  await mkdir(dir);
  for (const e of tree) if (e.type === "tree") await mkdir(insidePath(dir, e.path), { recursive: true });
  const pending: { file: string; path: string; target: string }[] = [];
  for (const [i, e] of blobs.entries()) {
    const file = insidePath(dir, e.path);
    const content = contents[i] ?? Buffer.alloc(0);
    if (e.mode === SYMLINK) {
      pending.push({ file, path: e.path, target: content.toString("utf8") });
      continue;
    }
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, content, { mode: e.mode === EXECUTABLE ? 0o755 : 0o644, flag: "wx" });
  }
  for (const l of pending) {
    await mkdir(dirname(l.file), { recursive: true });
    await symlink(l.target, l.file);
  }
  await checkLinks(dir, kind);
}

/**
 * Every symbolic link under `dir` resolved on disk: a target outside `dir` (absolute, `..`, or a
 * chain of links that each look inside) or one that is a directory fails; a dangling link inside
 * is kept, as git keeps it.
 */
export async function checkLinks(dir: string, kind: WorkspaceKind): Promise<void> {
  const root = await realpath(dir);
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const found = entries.filter((e) => e.isSymbolicLink()).map((e) => join(e.parentPath, e.name));
  for (const link of found.sort()) {
    const path = relative(dir, link).split(sep).join("/");
    let real: string;
    try {
      real = await realpath(link);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw outOfBoundsLink(kind, path);
      real = await danglingTarget(link);
    }
    if (real !== root && !real.startsWith(root + sep)) throw outOfBoundsLink(kind, path);
    const target = await stat(real).catch(() => undefined);
    if (target?.isDirectory() === true) throw directoryLink(kind, path);
  }
}

/**
 * Where a dangling link points, resolved as far as the file system allows: its nearest existing
 * ancestor's real path with the rest appended (what a later write would create).
 */
async function danglingTarget(link: string): Promise<string> {
  let path = link;
  const rest: string[] = [];
  for (let hops = 0; hops < MAX_LINK_HOPS;) {
    const info = await lstat(path).catch(() => undefined);
    if (info === undefined) {
      rest.push(basename(path));
      path = dirname(path);
    } else if (info.isSymbolicLink()) {
      path = resolve(dirname(path), await readlink(path));
      hops++;
    } else {
      return join(await realpath(path), ...rest.reverse());
    }
  }
  return "/";
}

/**
 * A copy of a directory on disk (an unpacked chart) in a new temporary directory, with the paths
 * of its files relative to the copy's root; its links are checked as a repository's are.
 */
export async function copyWorkspace(source: string): Promise<Workspace & { readonly files: readonly string[] }> {
  let files: string[] = [];
  const ws = await freshWorkspace(async (dir) => {
    await cp(source, dir, { recursive: true, verbatimSymlinks: true });
    await checkLinks(dir, "chart");
    const entries = await readdir(dir, { recursive: true, withFileTypes: true });
    files = entries.filter((e) => e.isFile()).map((e) => relative(dir, join(e.parentPath, e.name)).split(sep).join("/"));
  });
  return { ...ws, files: files.sort() };
}
