/**
 * Two processes given one cache directory (the controller and the sync engine on one disk) read
 * one repository at once: every fetch into the shared bare repository holds its lock, so none
 * fails on git's own lock files (`shallow.lock`), and the repository is whole afterwards.
 */
import { execFile } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { CACHE_KEY_FILE } from "../../../src/git/index.js";
import { commit, git, makeRepo, TempDirs } from "../support/git-repos.js";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const WORKER = fileURLToPath(new URL("fetch-worker.ts", import.meta.url));

const temp = new TempDirs();
afterAll(() => temp.cleanup());

interface WorkerResult {
  readonly code: number | null;
  readonly fetches: number;
  readonly failures: readonly string[];
  readonly stderr: string;
}

/** Runs the fetch worker in a process of its own. */
function runWorker(
  cacheDir: string,
  url: string,
  rounds: number,
  branches: ReadonlyArray<readonly [string, string]>,
): Promise<WorkerResult> {
  const args = ["--import", "tsx", WORKER, cacheDir, url, String(rounds), ...branches.map(([b, sha]) => `${b}=${sha}`)];
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd: ROOT, encoding: "utf8" }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof err.code === "number" ? err.code : null;
      const last = stdout.trim().split("\n").at(-1) ?? "";
      const parsed = last.startsWith("{")
        ? (JSON.parse(last) as { fetches: number; failures: string[] })
        : { fetches: 0, failures: [`no result: ${stdout}`] };
      resolve({ code, ...parsed, stderr });
    });
  });
}

describe("one cache directory shared by two processes", () => {
  it("fetches several branches many times from both at once without a lock failure, and leaves a valid repository", async () => {
    const repo = makeRepo(temp, { "id.txt": "main" });
    const branches: Array<[string, string]> = [["main", git(repo, "rev-parse", "HEAD").trim()]];
    for (const b of ["one", "two", "three"]) {
      git(repo, "checkout", "-q", "-b", b, "main");
      branches.push([b, commit(repo, { "id.txt": b, [`${b}.txt`]: b })]);
    }
    const cacheDir = temp.make("appset-shared-cache-");
    const url = `file://${repo}`;
    const rounds = 4;

    const results = await Promise.all([runWorker(cacheDir, url, rounds, branches), runWorker(cacheDir, url, rounds, branches)]);

    for (const r of results) expect({ code: r.code, failures: r.failures }, r.stderr).toEqual({ code: 0, failures: [] });
    // Each read really fetched: nothing was served from a reader's memory.
    expect(results.map((r) => r.fetches)).toEqual([rounds * branches.length, rounds * branches.length]);
    const entries = readdirSync(cacheDir);
    expect(entries.filter((e) => e.endsWith(".lock"))).toEqual([]);
    // one key, made by whichever process came first and used by both, and one repository
    const repos = entries.filter((e) => e !== CACHE_KEY_FILE);
    expect(entries).toContain(CACHE_KEY_FILE);
    expect(repos).toHaveLength(1);
    const bare = join(cacheDir, repos[0]!);
    expect(existsSync(join(bare, "shallow.lock"))).toBe(false);
    git(bare, "fsck", "--no-dangling", "--no-progress");
    for (const [branch, sha] of branches) expect(git(bare, "show", `${sha}:id.txt`)).toBe(branch);
  }, 180_000);
});
