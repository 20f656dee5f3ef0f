/**
 * Shared test support for the generators: ApplicationSet and cluster Secret builders, a generator
 * context over real ports, and real Git repositories in temporary directories.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { encodeSecretData, type ApplicationSet, type ApplicationSetGenerator, type Secret } from "../../../src/api/index.js";
import { SystemClock } from "../../../src/clock/index.js";
import { baseGitEnv, GitRepoReader } from "../../../src/git/index.js";
import { DEFAULT_GENERATOR_SETTINGS, type GeneratorContext, type GeneratorPorts, type GeneratorSettings } from "../../../src/generators/index.js";
import { TemplateEngine } from "../../../src/template/index.js";

/** An ApplicationSet with the given generators and template mode. */
export function appSet(generators: ApplicationSetGenerator[], opts: { goTemplate?: boolean; goTemplateOptions?: string[]; template?: ApplicationSet["spec"]["template"] } = {}): ApplicationSet {
  return {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "ApplicationSet",
    metadata: { name: "test", namespace: "argocd" },
    spec: {
      ...(opts.goTemplate === undefined ? {} : { goTemplate: opts.goTemplate }),
      ...(opts.goTemplateOptions === undefined ? {} : { goTemplateOptions: opts.goTemplateOptions }),
      generators,
      template: opts.template ?? {
        metadata: { name: "{{name}}" },
        spec: { project: "default", destination: { server: "{{server}}" }, source: { repoURL: "https://example.com/repo.git", path: "x" } },
      },
    },
  };
}

/** A cluster Secret with base64 `data`. */
export function clusterSecret(name: string, server: string, opts: { labels?: Record<string, string>; annotations?: Record<string, string>; project?: string; secretName?: string } = {}): Secret {
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: {
      name: opts.secretName ?? `${name}-secret`,
      namespace: "argocd",
      labels: { "argocd.argoproj.io/secret-type": "cluster", ...opts.labels },
      ...(opts.annotations === undefined ? {} : { annotations: opts.annotations }),
    },
    data: encodeSecretData({ name, server, ...(opts.project === undefined ? {} : { project: opts.project }) }),
  };
}

/** A generator context with a real template engine and the system clock. */
export function context(ports: GeneratorPorts = {}, settings: Partial<GeneratorSettings> = {}): GeneratorContext {
  return {
    ports,
    settings: { ...DEFAULT_GENERATOR_SETTINGS, ...settings },
    renderer: new TemplateEngine({ now: () => 0 }),
    clock: new SystemClock(),
    depth: 0,
  };
}

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

/** A Git reader with its cache in a temporary directory. */
export function gitReader(temp: TempDirs, credentials?: ConstructorParameters<typeof GitRepoReader>[0]["credentials"]): GitRepoReader {
  return new GitRepoReader({ cacheDir: temp.make("appset-cache-"), env: gitEnv(), ...(credentials === undefined ? {} : { credentials }) });
}
