/**
 * Real Git repositories for the integration tests: temporary directories, repositories built by
 * running git, and a Git reader with its cache in a temporary directory.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { encodeSecretData, type Secret } from "../../../src/api/index.js";
import { baseGitEnv, GitRepoReader } from "../../../src/git/index.js";

/** The environment for git in tests: no user config, fixed identity. */
export function gitEnv(): Record<string, string> {
  return {
    ...baseGitEnv(process.env),
    GIT_AUTHOR_NAME: "t",
    GIT_AUTHOR_EMAIL: "t@example.com",
    GIT_COMMITTER_NAME: "t",
    GIT_COMMITTER_EMAIL: "t@example.com",
  };
}

/** Runs git in a directory (tests only). */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, env: gitEnv(), encoding: "utf8" });
}

/** A temporary directory removed by `cleanup`. */
export class TempDirs {
  private readonly dirs: string[] = [];
  make(prefix = "appset-test-"): string {
    const d = mkdtempSync(join(tmpdir(), prefix));
    this.dirs.push(d);
    return d;
  }
  /** A fresh directory holding `files` (path to content). */
  writeTree(files: Readonly<Record<string, string>>, prefix = "appset-tree-"): string {
    const d = this.make(prefix);
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(dirname(join(d, path)), { recursive: true });
      writeFileSync(join(d, path), content);
    }
    return d;
  }
  cleanup(): void {
    for (const d of this.dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  }
}

/** Content of a file, or `{ symlink: target }`. */
export type FileSpec = string | { symlink: string };

/** Writes files into a work tree and commits them; returns the new commit SHA. */
export function commit(repo: string, files: Record<string, FileSpec>, message = "change"): string {
  for (const [path, content] of Object.entries(files)) {
    const full = join(repo, path);
    mkdirSync(dirname(full), { recursive: true });
    rmSync(full, { force: true });
    if (typeof content === "string") writeFileSync(full, content);
    else symlinkSync(content.symlink, full);
  }
  git(repo, "add", "-A");
  git(repo, "commit", "-q", "--allow-empty", "-m", message);
  return git(repo, "rev-parse", "HEAD").trim();
}

/** A new repository (branch `main`) with the files committed. */
export function makeRepo(temp: TempDirs, files: Record<string, FileSpec>): string {
  const repo = temp.make("appset-repo-");
  git(repo, "init", "-q", "-b", "main");
  commit(repo, files, "initial");
  return repo;
}

/**
 * A Git reader with its cache in a temporary directory, resolving every revision afresh (no
 * revision cache: a test that commits sees the new commit on its next call).
 */
export function gitReader(temp: TempDirs, credentials?: ConstructorParameters<typeof GitRepoReader>[0]["credentials"]): GitRepoReader {
  return new GitRepoReader({
    localRepositories: true,
    cacheDir: temp.make("appset-cache-"),
    env: gitEnv(),
    revisionCacheMs: 0,
    ...(credentials === undefined ? {} : { credentials }),
  });
}

/** An Argo CD `repository` Secret for `url` with more keys (tests only). */
export function repoSecret(url: string, data: Record<string, string>, name = "repo"): Secret {
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name, namespace: "argocd", labels: { "argocd.argoproj.io/secret-type": "repository" } },
    data: encodeSecretData({ url, ...data }),
  };
}
