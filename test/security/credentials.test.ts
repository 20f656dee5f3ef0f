/**
 * A tenant who can push to a repository that is read with credentials, trying to make git send
 * those credentials to a server of the tenant's choosing: a `.gitmodules` entry naming another
 * host, and a server that redirects git elsewhere. Real `git` against git's own smart-HTTP
 * backend; the other server records every Authorization header it receives.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { credentialsFromSecrets, GitRepoReader } from "../../src/git/index.js";
import { serveGitHttp, type GitHttpServer } from "../integration/support/git-http.js";
import { commit, git, gitEnv, makeRepo, repoSecret, TempDirs } from "../integration/support/git-repos.js";
import { listenLocal, type LocalServer } from "../integration/support/local-server.js";

const temp = new TempDirs();
const servers: { stop(): Promise<void> }[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.stop();
});
afterAll(() => temp.cleanup());

const ALICE = { username: "alice", password: "s3cret-of-team-a" };

/** Serves the bare repositories under a new root, with `auth` required when given. */
async function gitServer(auth?: typeof ALICE): Promise<GitHttpServer & { root: string }> {
  const root = temp.make("appset-served-");
  const server = await serveGitHttp(root, auth);
  servers.push(server);
  return { ...server, root };
}

/** A bare clone of a work tree under `root`. */
function publish(root: string, work: string, name: string): void {
  git(root, "clone", "-q", "--bare", work, join(root, name));
}

function reader(secretURL: string, submodules = false): GitRepoReader {
  const credentials = credentialsFromSecrets([repoSecret(secretURL, ALICE)]);
  return new GitRepoReader({ cacheDir: temp.make("appset-cache-"), env: gitEnv(), revisionCacheMs: 0, credentials, submodules });
}

describe("repository credentials never leave their server", () => {
  it("a submodule on another server gets none of the superproject's credentials, even when it asks for some", async () => {
    // the other server challenges every request, as one fishing for credentials would
    const attacker = await gitServer({ username: "mallory", password: "anything" });
    publish(attacker.root, makeRepo(temp, { "x.yaml": "x" }), "lib.git");
    const home = await gitServer(ALICE);
    const app = makeRepo(temp, { "app/config.json": "{}" });
    git(app, "-c", "protocol.file.allow=always", "submodule", "add", "-q", join(attacker.root, "lib.git"), "vendor/lib");
    git(app, "config", "-f", ".gitmodules", "submodule.vendor/lib.url", `${attacker.url}/lib.git`);
    commit(app, {}, "submodule on another server");
    publish(home.root, app, "app.git");

    const url = `${home.url}/app.git`;
    const r = reader(url, true);
    const sha = await r.resolveRevision(url, "main");
    await expect(r.listTree(url, sha)).rejects.toThrow(/git ls-remote|git fetch/);
    expect(attacker.requests.length).toBeGreaterThan(0);
    expect(attacker.authorizations.filter((a) => a !== "")).toEqual([]);
    expect(home.authorizations.some((a) => a.startsWith("Basic "))).toBe(true);
  });

  it("a submodule on the same server borrows them, as a relative submodule needs", async () => {
    const home = await gitServer(ALICE);
    publish(home.root, makeRepo(temp, { "x.yaml": "x" }), "lib.git");
    const app = makeRepo(temp, { "app/config.json": "{}" });
    git(app, "-c", "protocol.file.allow=always", "submodule", "add", "-q", join(home.root, "lib.git"), "vendor/lib");
    git(app, "config", "-f", ".gitmodules", "submodule.vendor/lib.url", "../lib.git");
    commit(app, {}, "relative submodule");
    publish(home.root, app, "app.git");
    const url = `${home.url}/app.git`;
    const r = reader(url, true);
    const tree = await r.listTree(url, await r.resolveRevision(url, "main"));
    expect(tree.map((e) => e.path)).toContain("vendor/lib/x.yaml");
  });

  it("a server that redirects git to another host does not get them from the credential helper", async () => {
    const attacker = await gitServer(ALICE);
    mkdirSync(join(attacker.root, "app.git"));
    git(join(attacker.root, "app.git"), "init", "-q", "--bare");
    const redirect: LocalServer = await listenLocal((req, res) => {
      res.writeHead(302, { Location: `${attacker.url}${req.url ?? "/"}` }).end();
    });
    servers.push(redirect);
    const url = `${redirect.url}/app.git`;
    await expect(reader(url).resolveRevision(url, "main")).rejects.toThrow(/git ls-remote/);
    expect(attacker.requests.length).toBeGreaterThan(0);
    expect(attacker.authorizations.filter((a) => a !== "")).toEqual([]);
  });
});
