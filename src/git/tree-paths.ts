/**
 * The paths a commit's tree may hold before anything is written or read by path: git itself
 * refuses to check out a path with an empty, `.`, `..` or `.git` segment (its `verify_path`), but a
 * crafted tree object can still carry one and `ls-tree` lists it as given. A tree holding such a
 * path is refused whole, so nothing downstream (the render workspace, the Git generator's paths)
 * ever joins one onto a directory. Pure.
 */
import { AppSetError } from "../errors.js";
import type { TreeEntry } from "./git-output.js";

/** Reason of a tree that holds a path no checkout would write. */
export const UNSAFE_TREE_PATH_REASON = "UnsafeTreePath";

/** Why `path` (relative to the repository root, `/`-separated) is unsafe, or undefined when it is not. */
export function unsafeSegment(path: string): string | undefined {
  for (const seg of path.split("/")) {
    if (seg === "") return "an empty segment (an absolute path or a doubled '/')";
    if (seg === "." || seg === "..") return `a '${seg}' segment`;
    if (seg.toLowerCase() === ".git") return "a '.git' segment";
  }
  return undefined;
}

/** A tree holding a path no checkout would write. */
export class UnsafeTreePathError extends AppSetError {
  constructor(
    readonly path: string,
    readonly commit: string,
    why: string,
  ) {
    super(UNSAFE_TREE_PATH_REASON, `invalid path ${JSON.stringify(path)} in the tree of commit ${commit}: it has ${why}`);
  }
}

/** Throws {@link UnsafeTreePathError} for the first entry whose path is unsafe. */
export function assertSafeTree(entries: readonly TreeEntry[], commit: string): void {
  for (const e of entries) {
    const why = unsafeSegment(e.path);
    if (why !== undefined) throw new UnsafeTreePathError(e.path, commit, why);
  }
}

/** Compares two paths segment by segment: the order of a directory walk. */
export function comparePaths(a: string, b: string): number {
  const sa = a.split("/");
  const sb = b.split("/");
  for (let i = 0; i < Math.min(sa.length, sb.length); i++) {
    if (sa[i] !== sb[i]) return sa[i]! < sb[i]! ? -1 : 1;
  }
  return sa.length - sb.length;
}
