/**
 * kubectl's client flags on a real apiserver, each one proven by what the apiserver (or a real proxy
 * in front of it) sees. The client is built as the controller builds it: the flags parsed by the
 * controller's parser, the client made by src/cli/kube.ts. The apiserver of this file is private: it
 * serves a certificate of a test CA naming `apiserver.test` and 127.0.0.1, and authenticates client
 * certificates of that CA, the admin token and ServiceAccount tokens; who a request authenticated as
 * is read from a SelfSubjectReview. Over a kubeconfig's own fields the flags merge as client-go's
 * clientcmd merges them (a CA given over a kubeconfig that skips verification checks it again).
 *
 * The apiserver has no basic authentication (removed in Kubernetes 1.19): `--username`/`--password`
 * are proven by the `Authorization: Basic` header a recording proxy sees; the apiserver ignores the
 * header and serves the request as `system:anonymous`.
 */
import { writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { Agent, request as httpsRequest } from "node:https";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { controllerNamespace, kubeClient } from "../../../src/cli/kube.js";
import { SystemClock } from "../../../src/clock/index.js";
import { parseConfig } from "../../../src/config/index.js";
import { KubeApiClient, KubeApiError, KubeReason, type ResourceDescriptor } from "../../../src/kube/index.js";
import { startControlPlane, type ControlPlane } from "../../cluster/control-plane.js";
import { TempDirs } from "../support/git-repos.js";
import { FakeProxy } from "../support/scm-proxy-server.js";
import { makeTestCa } from "../support/test-ca.js";

const temp = new TempDirs();
const NS = "default";
const SA = "appset-flags";
const SA_USER = `system:serviceaccount:${NS}:${SA}`;

const SERVICE_ACCOUNTS: ResourceDescriptor = {
  group: "",
  version: "v1",
  plural: "serviceaccounts",
  kind: "ServiceAccount",
  namespaced: true,
};

let cp: ControlPlane;
let admin: KubeApiClient;
let dir: string;
/** The apiserver's port; it listens on 127.0.0.1 only. */
let port: number;
/** A token of the ServiceAccount, from the TokenRequest API. */
let saToken: string;
/** The CA file of a CA that signed nothing the apiserver presents. */
let otherCa: string;
const file = (name: string): string => join(dir, name);

beforeAll(async () => {
  dir = temp.make("kubectl-flags-");
  makeTestCa(dir, ["apiserver.test"]);
  // A second CA, which signed nothing the apiserver presents.
  otherCa = join(temp.make("kubectl-flags-other-ca-"), "ca.crt");
  makeTestCa(dirname(otherCa));
  cp = await startControlPlane({
    components: ["etcd", "apiserver"],
    installCrds: false,
    apiServerFlags: [
      `--client-ca-file=${file("ca.crt")}`,
      `--tls-cert-file=${file("server.crt")}`,
      `--tls-private-key-file=${file("server.key")}`,
    ],
  });
  port = Number(new URL(cp.server).port);
  admin = KubeApiClient.fromConfig({ kind: "file", path: cp.kubeconfigPath });
  await admin.create(SERVICE_ACCOUNTS, { metadata: { name: SA, namespace: NS } });
  const tokenRequest = (await admin.transport.request({
    method: "POST",
    path: `/api/v1/namespaces/${NS}/serviceaccounts/${SA}/token`,
    body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { expirationSeconds: 3600 } },
  })) as { status: { token: string } };
  saToken = tokenRequest.status.token;
  writeFileSync(file("empty-kubeconfig"), "");
}, 180_000);

afterAll(async () => {
  await admin?.transport.close();
  await cp?.stop();
  temp.cleanup();
}, 60_000);

const opened: KubeApiClient[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((c) => c.transport.close()));
});

/** The controller's client from its command line. */
function fromFlags(flags: readonly string[]): KubeApiClient {
  const parsed = parseConfig(flags, {});
  if (parsed.kind !== "config") throw new Error(`flags refused: ${JSON.stringify(parsed)}`);
  const client = kubeClient(parsed.config, {}, { fieldManager: "appset-test", clock: new SystemClock(), program: "appset-test" });
  opened.push(client);
  return client;
}

const SELF_SUBJECT_REVIEWS: ResourceDescriptor = {
  group: "authentication.k8s.io",
  version: "v1",
  plural: "selfsubjectreviews",
  kind: "SelfSubjectReview",
  namespaced: false,
};

interface UserInfo {
  readonly username: string;
  readonly uid?: string;
  readonly groups?: readonly string[];
}

/** Who the apiserver says the client is, or the error the client got (its reason and message). */
async function whoami(flags: readonly string[]): Promise<UserInfo | { error: string; reason: string }> {
  try {
    const review = await fromFlags(flags).create(SELF_SUBJECT_REVIEWS, {
      apiVersion: "authentication.k8s.io/v1",
      kind: "SelfSubjectReview",
    });
    return (review as unknown as { status: { userInfo: UserInfo } }).status.userInfo;
  } catch (err) {
    if (!(err instanceof KubeApiError)) return { error: String(err), reason: "not a KubeApiError" };
    const causes: string[] = [];
    for (let c: unknown = err.cause; c instanceof Error; c = c.cause) causes.push(`${(c as { code?: string }).code ?? ""} ${c.message}`);
    return { error: [err.message, ...causes].join(" / "), reason: err.reason };
  }
}

const server = (): string => `https://127.0.0.1:${String(port)}`;
const clientCert = (): string[] => ["--client-certificate", file("client.crt"), "--client-key", file("client.key")];
const TLS_UNKNOWN_CA = /UNABLE_TO_VERIFY_LEAF_SIGNATURE|unable to verify the first certificate|self.signed certificate/i;

/** A kubeconfig of the apiserver with these cluster lines, the admin token, current. */
function kubeconfigWith(name: string, cluster: string): string {
  const path = file(name);
  writeFileSync(
    path,
    `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: ${server()}
${cluster}
users:
- name: admin
  user:
    token: ${cp.token}
contexts:
- name: ctx
  context: {cluster: c, user: admin, namespace: team-a}
current-context: ctx
`,
  );
  return path;
}

describe("the cluster and credential flags over an empty kubeconfig", () => {
  // [ case, flags after --kubeconfig <empty>, the user the apiserver sees, or the error ]
  const cases: Array<[string, () => string[], Partial<UserInfo> | RegExp]> = [
    [
      "--server, --certificate-authority and --client-certificate/--client-key authenticate with the certificate",
      () => ["--server", server(), "--certificate-authority", file("ca.crt"), ...clientCert()],
      { username: "appset-client" },
    ],
    [
      "--token of a ServiceAccount authenticates as the ServiceAccount",
      () => ["--server", server(), "--certificate-authority", file("ca.crt"), "--token", saToken],
      { username: SA_USER },
    ],
    [
      "--insecure-skip-tls-verify without a CA",
      () => ["--server", server(), "--insecure-skip-tls-verify", "--token", saToken],
      { username: SA_USER },
    ],
    ["no CA at all: the apiserver's certificate is not trusted", () => ["--server", server(), "--token", saToken], TLS_UNKNOWN_CA],
    [
      "a --certificate-authority that did not sign the apiserver's certificate fails TLS",
      () => ["--server", server(), "--certificate-authority", otherCa, "--token", saToken],
      TLS_UNKNOWN_CA,
    ],
    [
      "--tls-server-name names what the certificate is checked against, though the server is reached by IP",
      () => ["--server", server(), "--certificate-authority", file("ca.crt"), "--tls-server-name", "apiserver.test", "--token", saToken],
      { username: SA_USER },
    ],
    [
      "--tls-server-name of a name the certificate lacks fails TLS",
      () => ["--server", server(), "--certificate-authority", file("ca.crt"), "--tls-server-name", "elsewhere.test", "--token", saToken],
      /ERR_TLS_CERT_ALTNAME_INVALID|elsewhere\.test/,
    ],
    [
      "--certificate-authority with --insecure-skip-tls-verify is refused, as client-go refuses it",
      () => ["--server", server(), "--certificate-authority", file("ca.crt"), "--insecure-skip-tls-verify", "--token", saToken],
      /specifying a root certificates file with the insecure flag is not allowed/,
    ],
    [
      "--as with --as-uid: the apiserver sees the uid",
      () => [
        "--server",
        server(),
        "--certificate-authority",
        file("ca.crt"),
        "--token",
        cp.token,
        "--as",
        "someone",
        "--as-uid",
        "uid-1234",
      ],
      { username: "someone", uid: "uid-1234" },
    ],
  ];

  it.each(cases)("%s", async (_, flags, expected) => {
    const got = await whoami(["--kubeconfig", file("empty-kubeconfig"), ...flags()]);
    expect(got).toMatchObject(expected instanceof RegExp ? { error: expect.stringMatching(expected) } : expected);
  });

  it("--as-uid without --as is refused before any request, as client-go refuses it", () => {
    expect(() =>
      fromFlags(["--kubeconfig", file("empty-kubeconfig"), "--server", server(), "--insecure-skip-tls-verify", "--as-uid", "u"]),
    ).toThrow("requesting uid or groups for impersonation requires a username (--as)");
  });
});

describe("the flags over a kubeconfig's own cluster fields, as client-go merges them", () => {
  it.each([
    [
      "--certificate-authority over a kubeconfig that skips TLS verification checks the certificate again",
      () => kubeconfigWith("skips-verify", "    insecure-skip-tls-verify: true"),
      () => ["--certificate-authority", otherCa],
      TLS_UNKNOWN_CA,
    ],
    [
      "--certificate-authority over a kubeconfig that skips TLS verification: the right CA works",
      () => kubeconfigWith("skips-verify", "    insecure-skip-tls-verify: true"),
      () => ["--certificate-authority", file("ca.crt")],
      "admin",
    ],
    [
      "a kubeconfig's wrong CA fails TLS",
      () => kubeconfigWith("wrong-ca", `    certificate-authority: ${otherCa}`),
      () => [],
      TLS_UNKNOWN_CA,
    ],
    [
      "--insecure-skip-tls-verify over a kubeconfig's wrong CA works (the CA is dropped)",
      () => kubeconfigWith("wrong-ca", `    certificate-authority: ${otherCa}`),
      () => ["--insecure-skip-tls-verify"],
      "admin",
    ],
    [
      "a kubeconfig's tls-server-name the certificate lacks fails TLS",
      () => kubeconfigWith("wrong-name", `    certificate-authority: ${file("ca.crt")}\n    tls-server-name: elsewhere.test`),
      () => [],
      /ERR_TLS_CERT_ALTNAME_INVALID|elsewhere\.test/,
    ],
    [
      "--server clears the kubeconfig's tls-server-name",
      () => kubeconfigWith("wrong-name", `    certificate-authority: ${file("ca.crt")}\n    tls-server-name: elsewhere.test`),
      () => ["--server", server()],
      "admin",
    ],
  ])("%s", async (_, kubeconfig, flags, expected) => {
    const got = await whoami(["--kubeconfig", kubeconfig(), ...flags()]);
    if (typeof expected === "string") expect(got).toMatchObject({ username: expected });
    else expect(got).toMatchObject({ error: expect.stringMatching(expected) });
  });
});

describe("--context, --cluster and --user pick entries of a kubeconfig with several", () => {
  let kubeconfig: string;
  beforeAll(() => {
    kubeconfig = file("several");
    writeFileSync(
      kubeconfig,
      `apiVersion: v1
kind: Config
clusters:
- name: right
  cluster:
    server: ${server()}
    certificate-authority: ca.crt
- name: closed
  cluster:
    server: https://127.0.0.1:1
    certificate-authority: ca.crt
users:
- name: cert
  user:
    client-certificate: client.crt
    client-key: client.key
- name: sa
  user:
    token: ${saToken}
- name: stranger
  user:
    token: not-a-token
contexts:
- name: with-cert
  context: {cluster: right, user: cert}
- name: with-sa
  context: {cluster: right, user: sa, namespace: team-b}
- name: broken
  context: {cluster: closed, user: stranger, namespace: team-c}
current-context: broken
`,
    );
  });

  it.each([
    ["the current context (a closed port)", [], /ECONNREFUSED|connect/],
    ["--context with-cert", ["--context", "with-cert"], "appset-client"],
    ["--context with-sa", ["--context", "with-sa"], SA_USER],
    ["--cluster right: the current context's user is a stranger", ["--cluster", "right"], /Unauthorized/],
    ["--cluster right --user sa", ["--cluster", "right", "--user", "sa"], SA_USER],
    ["--context with-cert --user sa", ["--context", "with-cert", "--user", "sa"], SA_USER],
    ["--context with-sa --user cert", ["--context", "with-sa", "--user", "cert"], "appset-client"],
  ])("%s", async (_, flags, expected) => {
    const got = await whoami(["--kubeconfig", kubeconfig, ...flags]);
    if (typeof expected === "string") expect(got).toMatchObject({ username: expected });
    else expect(got).toMatchObject({ error: expect.stringMatching(expected) });
  });

  it.each([
    ["--context", "missing", 'context "missing" does not exist in the kubeconfig'],
    ["--user", "missing", 'user "missing" does not exist in the kubeconfig'],
    ["--cluster", "missing", 'cluster "missing" does not exist in the kubeconfig and no --server was given'],
  ])("%s %s is refused", (flag, value, message) => {
    expect(() => fromFlags(["--kubeconfig", kubeconfig, flag, value])).toThrow(message);
  });

  it("--namespace is the controller's namespace, else the selected context's", () => {
    const ns = (flags: string[]): string => {
      const parsed = parseConfig(["--kubeconfig", kubeconfig, ...flags], {});
      if (parsed.kind !== "config") throw new Error("flags refused");
      return controllerNamespace(parsed.config, {});
    };
    expect(ns([])).toBe("team-c");
    expect(ns(["--context", "with-sa"])).toBe("team-b");
    expect(ns(["--context", "with-sa", "--namespace", "argocd-x"])).toBe("argocd-x");
  });
});

/**
 * A plain-HTTP proxy in front of the apiserver (real node:http and node:https): it records the
 * headers of every request and forwards it, after `delayMs`, to the apiserver.
 */
class RecordingProxy {
  readonly seen: IncomingHttpHeaders[] = [];
  delayMs = 0;
  private readonly server: Server;
  private readonly agent = new Agent({ rejectUnauthorized: false });

  constructor() {
    this.server = createServer((req, res) => {
      this.seen.push(req.headers);
      void sleep(this.delayMs).then(() => {
        const up = httpsRequest(
          { host: "127.0.0.1", port, path: req.url, method: req.method, headers: req.headers, agent: this.agent },
          (ures) => {
            res.writeHead(ures.statusCode ?? 502, ures.headers);
            ures.pipe(res);
          },
        );
        up.on("error", () => res.destroy());
        res.on("close", () => up.destroy());
        req.pipe(up);
      });
    });
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${String((this.server.address() as AddressInfo).port)}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    this.agent.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

describe("flags seen on the wire, through a recording proxy", () => {
  const proxy = new RecordingProxy();
  let url: string;
  beforeAll(async () => {
    url = await proxy.start();
  });
  afterAll(() => proxy.stop());
  afterEach(() => {
    proxy.seen.length = 0;
    proxy.delayMs = 0;
  });

  // client-node accepts a plain-HTTP server only with insecure-skip-tls-verify.
  const through = (...flags: string[]): string[] => [
    "--kubeconfig",
    file("empty-kubeconfig"),
    "--server",
    url,
    "--insecure-skip-tls-verify",
    ...flags,
  ];

  it("--disable-compression asks for identity; without it the client asks for gzip", async () => {
    expect(await whoami(through("--token", saToken, "--disable-compression"))).toMatchObject({ username: SA_USER });
    expect(await whoami(through("--token", saToken))).toMatchObject({ username: SA_USER });
    expect(proxy.seen.map((h) => h["accept-encoding"])).toEqual(["identity", "gzip"]);
  });

  it("--username/--password send basic auth, which the apiserver (1.19 and later) ignores: the request is anonymous", async () => {
    expect(await whoami(through("--username", "alice", "--password", "s3cret"))).toMatchObject({
      reason: KubeReason.Forbidden,
      error: expect.stringContaining('User "system:anonymous"'),
    });
    expect(proxy.seen.map((h) => h.authorization)).toEqual([`Basic ${Buffer.from("alice:s3cret").toString("base64")}`]);
  });

  it("--request-timeout bounds a request the apiserver is slow to answer; the default 60 s bound waits for it", async () => {
    proxy.delayMs = 2_500;
    const started = performance.now();
    expect(await whoami(through("--token", saToken, "--request-timeout", "1s"))).toMatchObject({ reason: KubeReason.Timeout });
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(950);
    expect(elapsed).toBeLessThan(2_500);
    expect(await whoami(through("--token", saToken))).toMatchObject({ username: SA_USER });
  });
});

describe("--proxy-url", () => {
  const proxy = new FakeProxy();
  beforeAll(() => proxy.start());
  afterAll(() => proxy.stop());

  it("reaches the apiserver through an HTTP CONNECT proxy: its name resolves only there", async () => {
    const flags = ["--kubeconfig", file("empty-kubeconfig"), "--server", `https://apiserver.test:${String(port)}`];
    flags.push("--certificate-authority", file("ca.crt"), "--token", saToken);
    expect(await whoami(flags)).toMatchObject({ error: expect.stringMatching(/ENOTFOUND|EAI_AGAIN|apiserver\.test/) });
    expect(proxy.relayed).toEqual([]);
    expect(await whoami([...flags, "--proxy-url", proxy.url])).toMatchObject({ username: SA_USER });
    expect(proxy.relayed).toEqual([expect.objectContaining({ method: "CONNECT", target: `apiserver.test:${String(port)}` })]);
  });
});
