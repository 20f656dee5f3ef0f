import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { git, gitEnv, makeRepo, TempDirs, repoSecret } from "../support/git-repos.js";
import { serveGitSsh, sshKeyPair, type GitSshServer, type SshKeyPair } from "../support/git-ssh.js";
import { credentialsFromSecrets } from "../../../src/git/credentials.js";
import { GIT_ERROR_REASON } from "../../../src/git/exec.js";
import { GitRepoReader } from "../../../src/git/reader.js";

const temp = new TempDirs();
afterAll(() => temp.cleanup());

describe("SSH repositories with a private key from a repository Secret", () => {
  let server: GitSshServer;
  let key: SshKeyPair;
  let url = "";
  let knownHosts = "";
  let emptyKnownHosts = "";
  let wrongKnownHosts = "";
  beforeAll(async () => {
    const work = makeRepo(temp, { "apps/a/config.json": '{"a":1}' });
    const root = temp.make("appset-ssh-served-");
    git(root, "clone", "-q", "--bare", work, join(root, "repo.git"));
    key = sshKeyPair();
    server = await serveGitSsh(root, key.public);
    url = `ssh://git@127.0.0.1:${String(server.port)}/repo.git`;
    const dir = temp.make("appset-known-hosts-");
    knownHosts = join(dir, "known_hosts");
    writeFileSync(knownHosts, `${server.knownHostsLine}\n`);
    emptyKnownHosts = join(dir, "empty");
    writeFileSync(emptyKnownHosts, "");
    wrongKnownHosts = join(dir, "wrong");
    const other = sshKeyPair().public.split(" ").slice(0, 2).join(" ");
    writeFileSync(wrongKnownHosts, `[127.0.0.1]:${String(server.port)} ${other}\n`);
  });
  afterAll(() => server.stop());

  const reader = (data: Record<string, string>, knownHostsFile?: string) =>
    new GitRepoReader({
      localRepositories: true,
      cacheDir: temp.make("appset-cache-"),
      env: gitEnv(),
      credentials: credentialsFromSecrets([repoSecret(url, data)]),
      ...(knownHostsFile === undefined ? {} : { knownHostsFile }),
    });

  it.each([
    // name; which key; insecure; which known_hosts file; expected failure (undefined: success)
    {
      name: "the authorized key with insecure set reads the repository without any known host",
      wrongKey: false,
      insecure: true,
      hosts: "none",
      fails: undefined,
    },
    {
      name: "the authorized key reads the repository when known_hosts lists the server",
      wrongKey: false,
      insecure: false,
      hosts: "server",
      fails: undefined,
    },
    {
      name: "without insecure, a server missing from known_hosts is refused",
      wrongKey: false,
      insecure: false,
      hosts: "empty",
      fails: /Host key verification failed/,
    },
    {
      name: "without insecure or a known_hosts file, the unknown server is refused",
      wrongKey: false,
      insecure: false,
      hosts: "none",
      fails: /Host key verification failed/,
    },
    {
      name: "a known_hosts entry with another key for the server is refused, saying where host keys come from",
      wrongKey: false,
      insecure: false,
      hosts: "wrong",
      fails: /REMOTE HOST IDENTIFICATION HAS CHANGED[\s\S]*argocd-ssh-known-hosts-cm/,
    },
    { name: "another key is refused even with insecure set", wrongKey: true, insecure: true, hosts: "none", fails: /Permission denied/ },
  ])("$name", async ({ wrongKey, insecure, hosts, fails }) => {
    const privateKey = wrongKey ? sshKeyPair().private : key.private;
    const files: Record<string, string> = { server: knownHosts, empty: emptyKnownHosts, wrong: wrongKnownHosts };
    const file = files[hosts];
    const r = reader({ sshPrivateKey: privateKey, ...(insecure ? { insecure: "true" } : {}) }, file);
    const read = async () => {
      const sha = await r.resolveRevision(url, "main");
      const tree = await r.listTree(url, sha);
      return (
        await r.readBlobs(
          url,
          sha,
          tree.filter((e) => e.type === "blob"),
        )
      ).map((b) => b.toString("utf8"));
    };
    if (fails === undefined) {
      await expect(read()).resolves.toEqual(['{"a":1}']);
      return;
    }
    const err = await read().then(
      () => undefined,
      (e: unknown) => e as Error & { reason?: string },
    );
    expect(err?.reason).toBe(GIT_ERROR_REASON);
    expect(err?.message).toMatch(fails);
    expect(err?.message).not.toContain(privateKey.split("\n")[1]);
  });

  it("authenticates with the key: every successful read is a verified public-key login", async () => {
    const before = server.logins;
    const r = reader({ sshPrivateKey: key.private, insecure: "true" });
    await r.listTree(url, await r.resolveRevision(url, "main"));
    expect(server.logins - before).toBe(2);
  });

  it("reads the known_hosts file before every command, so a changed ConfigMap applies at once", async () => {
    const file = join(temp.make("appset-known-hosts-"), "ssh_known_hosts");
    const r = reader({ sshPrivateKey: key.private }, file);
    await expect(r.resolveRevision(url, "main")).rejects.toThrow(/Host key verification failed/);
    writeFileSync(file, `${server.knownHostsLine}\n`);
    await expect(r.resolveRevision(url, "main")).resolves.toMatch(/^[0-9a-f]{40}$/);
  });
});
