/**
 * Repositories no `git commit` would make, for the attacks on the readers: tree objects written
 * byte by byte with `git hash-object --literally` (entries named `..`, `.git`, …), committed and
 * served over git's real smart-HTTP backend.
 */
import { execFileSync } from "node:child_process";
import { git, gitEnv } from "../../integration/support/git-repos.js";

/** One entry of a raw tree object. */
export interface RawEntry {
  readonly mode: "100644" | "100755" | "120000" | "40000";
  readonly name: string;
  readonly oid: string;
}

/** Runs git with `input` on stdin; its trimmed stdout. */
function gitIn(cwd: string, input: Buffer | string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, env: gitEnv(), input }).toString("utf8").trim();
}

/** Writes a blob; its id. */
export function blob(repo: string, content: string): string {
  return gitIn(repo, content, "hash-object", "-w", "--stdin");
}

/** Writes a tree object of exactly these entries, unchecked; its id. */
export function rawTree(repo: string, entries: readonly RawEntry[]): string {
  const body = Buffer.concat(entries.map((e) => Buffer.concat([Buffer.from(`${e.mode} ${e.name}\u0000`), Buffer.from(e.oid, "hex")])));
  return gitIn(repo, body, "hash-object", "-w", "--literally", "-t", "tree", "--stdin");
}

/** Points `main` of the bare repository at a new commit of `tree`; the commit's id. */
export function commitTree(repo: string, tree: string): string {
  const sha = gitIn(repo, "", "commit-tree", tree, "-m", "crafted");
  git(repo, "update-ref", "refs/heads/main", sha);
  return sha;
}
