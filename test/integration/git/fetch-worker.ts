/**
 * One process of the shared-cache test. For `rounds` rounds, reads every branch given at once,
 * each read by Git readers of its own (nothing kept in memory, revision cache off), so that each
 * really runs `ls-remote` and `fetch` into the one cache directory shared with the other process.
 * Checks each branch's `id.txt` names the branch, prints `{"fetches":N,"failures":[...]}` and
 * exits 1 if anything failed.
 *
 * Usage: node --import tsx fetch-worker.ts CACHE_DIR REPO_URL ROUNDS BRANCH=SHA...
 */
import { baseGitEnv, GitRepoReader } from "../../../src/git/index.js";

const [cacheDir = "", url = "", roundsText = "1", ...pairs] = process.argv.slice(2);
const branches = pairs.map((p) => p.split("=") as [string, string]);
const env = baseGitEnv(process.env);

const fresh = (): GitRepoReader => new GitRepoReader({ localRepositories: true, cacheDir, env, revisionCacheMs: 0, timeoutMs: 120_000 });

/**
 * Resolves one branch, then reads it with another fresh reader (which has seen no `ls-remote`
 * accepted, so it fetches even when the commit is on disk); returns the fetches it ran.
 */
async function readBranch(branch: string, sha: string): Promise<number> {
  const resolved = await fresh().resolveRevision(url, branch);
  if (resolved !== sha) throw new Error(`${branch} resolved to ${resolved}, want ${sha}`);
  const reader = fresh();
  const tree = await reader.listTree(url, resolved);
  const id = tree.filter((e) => e.path === "id.txt");
  const [content] = await reader.readBlobs(url, resolved, id);
  if (content?.toString("utf8") !== branch) throw new Error(`${branch}: id.txt is ${JSON.stringify(content?.toString("utf8"))}`);
  return reader.stats.fetch;
}

let fetches = 0;
const failures: string[] = [];
for (let round = 0; round < Number(roundsText); round++) {
  const results = await Promise.allSettled(branches.map(([branch, sha]) => readBranch(branch, sha)));
  for (const r of results) {
    if (r.status === "fulfilled") fetches += r.value;
    else failures.push(r.reason instanceof Error ? r.reason.message : String(r.reason));
  }
}
process.stdout.write(`${JSON.stringify({ fetches, failures })}\n`);
process.exitCode = failures.length === 0 ? 0 : 1;
