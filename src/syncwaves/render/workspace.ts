/**
 * A commit's files written out to a fresh temporary directory, for the programs that read a
 * repository from disk (Helm, Kustomize). Each render gets its own copy, since Kustomize's edits
 * change the kustomization in place; the copy is removed after the render. Symbolic links are kept
 * when they point inside the copy and dropped otherwise; executables keep their mode; submodules
 * are not written.
 *
 * I/O boundary: the file system and the injected GitReader.
 */
import { cp, mkdir, mkdtemp, readdir, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, posix, resolve } from "node:path";
import type { GitReader, TreeEntry } from "../../git/index.js";

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
const EXECUTABLE = "100755";

/** True when a link at `path` (relative to the root) to `target` stays inside the root. */
export function linkStaysInside(path: string, target: string): boolean {
  if (target.startsWith("/")) return false;
  const joined = posix.normalize(posix.join(posix.dirname(path), target));
  return joined !== ".." && !joined.startsWith("../");
}

/** Which commit to write out. */
export interface WorkspaceInput {
  readonly git: GitReader;
  readonly repoURL: string;
  readonly commit: string;
  readonly tree: readonly TreeEntry[];
  readonly signal?: AbortSignal | undefined;
}

/** Writes the blobs of the commit's tree to a new temporary directory. */
export async function writeWorkspace({ git, repoURL, commit, tree, signal }: WorkspaceInput): Promise<Workspace> {
  const blobs = tree.filter((e) => e.type === "blob");
  const contents = await git.readBlobs(repoURL, commit, blobs, signal);
  const base = await mkdtemp(join(tmpdir(), "appset-render-"));
  const dir = join(base, "repo");
  const scratch = join(base, "scratch");
  const dispose = (): Promise<void> => rm(base, { recursive: true, force: true });
  try {
    await mkdir(dir);
    await mkdir(scratch);
    for (const e of tree) if (e.type === "tree") await mkdir(join(dir, e.path), { recursive: true });
    for (const [i, e] of blobs.entries()) {
      const file = resolve(dir, e.path);
      await mkdir(dirname(file), { recursive: true });
      const content = contents[i] ?? Buffer.alloc(0);
      if (e.mode === SYMLINK) {
        const target = content.toString("utf8");
        if (linkStaysInside(e.path, target)) await symlink(target, file);
        continue;
      }
      await writeFile(file, content, { mode: e.mode === EXECUTABLE ? 0o755 : 0o644 });
    }
  } catch (err) {
    await dispose();
    throw err;
  }
  return { dir, scratch, dispose };
}

/**
 * A copy of a directory on disk (an unpacked chart) in a new temporary directory, with the paths
 * of its files relative to the copy's root.
 */
export async function copyWorkspace(source: string): Promise<Workspace & { readonly files: readonly string[] }> {
  const base = await mkdtemp(join(tmpdir(), "appset-render-"));
  const dir = join(base, "repo");
  const scratch = join(base, "scratch");
  const dispose = (): Promise<void> => rm(base, { recursive: true, force: true });
  try {
    await cp(source, dir, { recursive: true, verbatimSymlinks: true });
    await mkdir(scratch);
    const entries = await readdir(dir, { recursive: true, withFileTypes: true });
    const files = entries.filter((e) => e.isFile()).map((e) => posix.join(relativeTo(dir, e.parentPath), e.name));
    return { dir, scratch, dispose, files: files.sort() };
  } catch (err) {
    await dispose();
    throw err;
  }
}

/** `path` relative to `root`, with forward slashes ("" for the root itself). */
function relativeTo(root: string, path: string): string {
  return path === root ? "" : path.slice(root.length + 1);
}
