/**
 * A real OCI registry for tests: CNCF Distribution's `registry` (built by test/registry/build.sh,
 * found through `APPSET_REGISTRY_BIN`) on 127.0.0.1 at a free port, over HTTP or HTTPS (a test CA),
 * optionally behind token authentication as public registries use it: the registry answers
 * `Bearer realm=…` and trusts tokens signed by the test CA's server key, which a small token
 * service here issues for the right username and password. Artifacts are pushed with the real `oras`
 * (a directory) or `helm push` (a chart).
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { createSign, randomUUID, X509Certificate } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Agent, request } from "undici";
import { listenLocal, type LocalServer } from "./local-server.js";
import type { TestCa } from "./test-ca.js";

const run = promisify(execFile);

/** The directory holding `registry` and `oras`; throws with what to do when they are missing. */
export function registryToolsDir(): string {
  const dir = process.env["APPSET_REGISTRY_BIN"];
  if (dir === undefined || !existsSync(join(dir, "registry")) || !existsSync(join(dir, "oras"))) {
    throw new Error(
      "the OCI registry is missing: run through `npm test`, or set APPSET_REGISTRY_BIN to the output of `bash test/registry/build.sh`",
    );
  }
  return dir;
}

/** Writes `files` (path → content) under a fresh directory below `root` and returns it: an artifact's content to push. */
export function contentDir(root: string, files: Record<string, string>): string {
  const dir = mkdtempSync(join(root, "content-"));
  for (const [p, body] of Object.entries(files)) {
    mkdirSync(join(dir, p, ".."), { recursive: true });
    writeFileSync(join(dir, p), body);
  }
  return dir;
}

/** Credentials the token service accepts. */
export interface RegistryUser {
  readonly username: string;
  readonly password: string;
}

export interface OciRegistryOptions {
  /** Serve HTTPS with this CA's server certificate (else plain HTTP). */
  readonly tls?: TestCa;
  /** Require a token, issued only for this user (else anonymous pull and push). */
  readonly user?: RegistryUser;
}

/** A running registry. */
export interface OciRegistry {
  /** `127.0.0.1:<port>`. */
  readonly host: string;
  /** `oci://127.0.0.1:<port>/<repository>`. */
  url(repository: string): string;
  /** Pushes the files of `dir` (as `oras push <ref> .`, run inside it) under `repository:tag`. */
  pushDirectory(repository: string, tag: string, dir: string): Promise<void>;
  /** Runs `oras` with the registry's TLS and login flags added. */
  oras(args: readonly string[], cwd?: string): Promise<string>;
  /** Token requests answered, by outcome. */
  readonly tokens: { granted: number; refused: number };
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

const b64url = (b: Buffer | string): string => Buffer.from(b).toString("base64url");

/** A token the registry trusts: RS256, the signing certificate in `x5c`, the scope's actions granted. */
function signToken(ca: TestCa, service: string, scope: string): string {
  const der = new X509Certificate(ca.serverCert).raw.toString("base64");
  const header = { typ: "JWT", alg: "RS256", x5c: [der] };
  const now = Math.floor(Date.now() / 1000);
  const access = scope
    .split(" ")
    .filter((s) => s !== "")
    .map((s) => {
      const [type, name, actions] = s.split(":");
      return { type, name, actions: (actions ?? "").split(",") };
    });
  const claims = {
    iss: "appset-test-issuer",
    sub: "tester",
    aud: service,
    exp: now + 600,
    nbf: now - 60,
    iat: now,
    jti: randomUUID(),
    access,
  };
  const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}`;
  const signature = createSign("RSA-SHA256").update(input).sign(ca.serverKey);
  return `${input}.${b64url(signature)}`;
}

/** The token service: a token for the user's basic credentials, 401 for anything else. */
async function tokenService(ca: TestCa, user: RegistryUser, tokens: { granted: number; refused: number }): Promise<LocalServer> {
  const expected = `Basic ${Buffer.from(`${user.username}:${user.password}`).toString("base64")}`;
  return listenLocal(
    (req, res) => {
      const url = new URL(req.url ?? "/", "http://localhost");
      if (req.headers.authorization !== expected) {
        tokens.refused++;
        res.writeHead(401, { "content-type": "application/json" }).end('{"details":"invalid credentials"}');
        return;
      }
      tokens.granted++;
      const token = signToken(ca, url.searchParams.get("service") ?? "", url.searchParams.getAll("scope").join(" "));
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ token, access_token: token }));
    },
    { cert: ca.serverCert, key: ca.serverKey },
  );
}

async function waitReady(base: string, ca: string | undefined, child: ChildProcess, log: () => string): Promise<void> {
  const dispatcher = new Agent({ connect: ca === undefined ? {} : { ca } });
  const deadline = Date.now() + 30_000;
  try {
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`registry exited: ${log()}`);
      try {
        const res = await request(`${base}/v2/`, { dispatcher });
        await res.body.dump();
        if (res.statusCode === 200 || res.statusCode === 401) return;
      } catch {
        // Not listening yet.
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    await dispatcher.close();
  }
  throw new Error(`registry did not start within 30 s: ${log()}`);
}

/** Starts a registry (see the module comment). */
export async function startOciRegistry(opts: OciRegistryOptions = {}): Promise<OciRegistry> {
  const bin = registryToolsDir();
  const dir = mkdtempSync(join(tmpdir(), "appset-registry-"));
  const port = await freePort();
  const host = `127.0.0.1:${String(port)}`;
  const tokens = { granted: 0, refused: 0 };
  const lines = [
    "version: 0.1",
    "log:",
    "  level: warn",
    "storage:",
    "  filesystem:",
    `    rootdirectory: ${join(dir, "data")}`,
    "http:",
    `  addr: ${host}`,
  ];
  if (opts.tls !== undefined) {
    writeFileSync(join(dir, "server.crt"), opts.tls.serverCert);
    writeFileSync(join(dir, "server.key"), opts.tls.serverKey);
    writeFileSync(join(dir, "ca.crt"), opts.tls.caCert);
    lines.push("  tls:", `    certificate: ${join(dir, "server.crt")}`, `    key: ${join(dir, "server.key")}`);
  }
  let tokenServer: LocalServer | undefined;
  if (opts.user !== undefined) {
    if (opts.tls === undefined) throw new Error("token authentication needs a test CA to sign with");
    tokenServer = await tokenService(opts.tls, opts.user, tokens);
    writeFileSync(join(dir, "ca.crt"), opts.tls.caCert);
    lines.push(
      "auth:",
      "  token:",
      `    realm: ${tokenServer.url.replace("//localhost:", "//127.0.0.1:")}/token`,
      "    service: appset-test-registry",
      "    issuer: appset-test-issuer",
      `    rootcertbundle: ${join(dir, "ca.crt")}`,
    );
  }
  writeFileSync(join(dir, "config.yml"), lines.join("\n") + "\n");
  let output = "";
  const child = spawn(join(bin, "registry"), ["serve", join(dir, "config.yml")], { stdio: ["ignore", "pipe", "pipe"] });
  child.stdout.on("data", (d: Buffer) => (output = (output + d.toString()).slice(-4000)));
  child.stderr.on("data", (d: Buffer) => (output = (output + d.toString()).slice(-4000)));
  const base = `${opts.tls === undefined ? "http" : "https"}://${host}`;
  const stop = async (): Promise<void> => {
    child.kill("SIGKILL");
    await tokenServer?.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitReady(base, opts.tls?.caCert, child, () => output);
  } catch (err) {
    await stop();
    throw err;
  }
  const tlsFlags = opts.tls === undefined ? ["--plain-http"] : ["--ca-file", join(dir, "ca.crt")];
  const loginFlags = opts.user === undefined ? [] : ["-u", opts.user.username, "-p", opts.user.password];
  const oras = async (args: readonly string[], cwd?: string): Promise<string> => {
    const { stdout } = await run(join(bin, "oras"), [...args, ...tlsFlags, ...loginFlags], {
      cwd: cwd ?? dir,
      env: { ...process.env, HOME: dir, DOCKER_CONFIG: join(dir, "docker") },
      timeout: 60_000,
    });
    return stdout;
  };
  return {
    host,
    url: (repository) => `oci://${host}/${repository}`,
    oras,
    pushDirectory: async (repository, tag, content) => {
      await oras(["push", `${host}/${repository}:${tag}`, "."], content);
    },
    tokens,
    stop,
  };
}
