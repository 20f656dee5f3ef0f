/**
 * A real SSH server (ssh2) on 127.0.0.1 that accepts one public key and serves the bare
 * repositories under a root through `git-upload-pack`, the way a Git host does: real remote
 * repositories over SSH for tests. Also generates OpenSSH key pairs.
 */
import { spawn } from "node:child_process";
import { timingSafeEqual } from "node:crypto";
import { isAbsolute, join, normalize } from "node:path";
import type { AddressInfo } from "node:net";
import { Server, utils, type Connection, type ServerChannel } from "ssh2";
import { gitEnv } from "./git-repos.js";

/** An ed25519 key pair: `private` in OpenSSH PEM format, `public` as an authorized_keys line. */
export interface SshKeyPair {
  readonly private: string;
  readonly public: string;
}

/**
 * A new ed25519 key pair in OpenSSH format. ssh2's generator drops the leading zero bytes of a
 * public key that starts with one (about 1 key in 256), and its own parser then rejects the pair
 * (mscdex/ssh2#1513): such pairs are generated again.
 */
export function sshKeyPair(): SshKeyPair {
  for (let attempt = 1; ; attempt++) {
    const pair = utils.generateKeyPairSync("ed25519");
    const parses = !(utils.parseKey(pair.private) instanceof Error) && !(utils.parseKey(pair.public) instanceof Error);
    if (parses) return { private: pair.private, public: pair.public };
    if (attempt >= 20) throw new Error("ssh2 generated 20 ed25519 key pairs it cannot parse");
  }
}

/** A running server; `stop` closes it and every connection. */
export interface GitSshServer {
  readonly port: number;
  /** The known_hosts line for this server (`[127.0.0.1]:<port> ssh-ed25519 ...`). */
  readonly knownHostsLine: string;
  /** Public-key logins accepted (signature verified), for asserting the key was used. */
  readonly logins: number;
  stop(): Promise<void>;
}

function sameKey(allowed: ReturnType<typeof utils.parseKey>, algo: string, data: Buffer): boolean {
  if (allowed instanceof Error) return false;
  const want = allowed.getPublicSSH();
  return algo === allowed.type && data.length === want.length && timingSafeEqual(data, want);
}

/** `git-upload-pack '<path>'` (what git sends over SSH) → the repository under `root`, or undefined. */
function repoPath(root: string, command: string): string | undefined {
  const m = /^git-upload-pack '([^']+)'$/.exec(command);
  if (m === null) return undefined;
  const rel = normalize(m[1]!.replace(/^\/+/, ""));
  if (isAbsolute(rel) || rel.startsWith("..")) return undefined;
  return join(root, rel);
}

function runUploadPack(channel: ServerChannel, repo: string, protocol: string | undefined): void {
  const child = spawn("git-upload-pack", [repo], { env: { ...gitEnv(), ...(protocol === undefined ? {} : { GIT_PROTOCOL: protocol }) } });
  channel.pipe(child.stdin);
  child.stdout.pipe(channel, { end: false });
  child.stderr.pipe(channel.stderr, { end: false });
  child.on("close", (code) => {
    channel.exit(code ?? 1);
    channel.end();
  });
}

function serveClient(client: Connection, root: string, allowed: ReturnType<typeof utils.parseKey>, onLogin: () => void): void {
  client.on("authentication", (ctx) => {
    if (ctx.method !== "publickey" || !sameKey(allowed, ctx.key.algo, ctx.key.data) || allowed instanceof Error) {
      ctx.reject(["publickey"]);
      return;
    }
    if (ctx.signature === undefined || ctx.blob === undefined) {
      ctx.accept();
      return;
    }
    if (allowed.verify(ctx.blob, ctx.signature, ctx.hashAlgo)) {
      onLogin();
      ctx.accept();
    } else ctx.reject(["publickey"]);
  });
  client.on("ready", () => {
    client.on("session", (accept) => {
      const session = accept();
      let protocol: string | undefined;
      session.on("env", (ok, _reject, info) => {
        if (info.key === "GIT_PROTOCOL") protocol = info.val;
        (ok as (() => void) | undefined)?.();
      });
      session.on("exec", (ok, reject, info) => {
        const repo = repoPath(root, info.command);
        if (repo === undefined) {
          reject();
          return;
        }
        runUploadPack(ok(), repo, protocol);
      });
    });
  });
  client.on("error", () => undefined);
}

/** Serves the bare repositories under `root` at ssh://git@127.0.0.1:<port>/<name> to the holder of `authorizedKey`. */
export async function serveGitSsh(root: string, authorizedKey: string): Promise<GitSshServer> {
  const host = sshKeyPair();
  const allowed = utils.parseKey(authorizedKey);
  const clients = new Set<Connection>();
  let logins = 0;
  const server = new Server({ hostKeys: [host.private] }, (client) => {
    clients.add(client);
    client.on("close", () => clients.delete(client));
    serveClient(client, root, allowed, () => logins++);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const [type, key] = host.public.split(" ");
  return {
    port,
    knownHostsLine: `[127.0.0.1]:${String(port)} ${type ?? ""} ${key ?? ""}`,
    get logins() {
      return logins;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        for (const c of clients) c.end();
        server.close(() => resolve());
      }),
  };
}
