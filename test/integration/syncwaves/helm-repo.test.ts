/**
 * `chart` sources from a real Helm chart repository: charts packaged with the real helm (the one
 * Argo CD v3.6 ships), indexed with `helm repo index`, served over HTTP (with basic auth in one
 * case, over TLS with a private CA and client certificates in another), pulled and rendered by the
 * sync engine's manifest source with the same helm.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Application, ApplicationSource } from "../../../src/api/index.js";
import { credentialsFromSecrets, type CredentialsLookup } from "../../../src/git/index.js";
import type { KubeObject } from "../../../src/kube/index.js";
import { GitManifestSource } from "../../../src/syncwaves/git-source.js";
import { MANIFEST_ERROR } from "../../../src/syncwaves/manifests.js";
import { renderToolsDir } from "../../support/render-tools.js";
import { gitReader, repoSecret, TempDirs } from "../support/git-repos.js";
import { HelmRepoDir, serveHelmRepo, type HelmRepoServer } from "../support/helm-repo.js";
import { makeTestCa, type TestCa } from "../support/test-ca.js";
import { silentServer, type Misbehaving } from "../http/stalling-servers.js";

const helm = join(renderToolsDir(), "helm");
const temp = new TempDirs();
afterAll(() => temp.cleanup());

/** A chart whose ConfigMap shows its version, values and release. */
const web = (version: string): Record<string, string> => ({
  "values.yaml": `replicas: 1\ncolor: blue\n`,
  "values-prod.yaml": "replicas: 3\n",
  // The ConfigMap shows the chart's version and every value.
  "templates/cm.yaml": `apiVersion: v1
kind: ConfigMap
metadata: {name: "{{ .Release.Name }}-cfg", namespace: "{{ .Release.Namespace }}"}
data:
  version: "${version}"
{{- range $k, $v := .Values }}
  {{ $k }}: {{ $v | quote }}
{{- end }}
`,
});

const app: Application = { metadata: { name: "web" }, spec: { destination: { namespace: "prod" }, project: "default" } };
const facts = { kubeVersion: "v1.36.3", apiVersions: ["v1"] };

function manifestSource(credentials?: CredentialsLookup, tlsCertsDir?: string): GitManifestSource {
  return new GitManifestSource(gitReader(temp), {
    tools: { helm, env: {} },
    charts: {
      ...(credentials ? { credentials } : {}),
      ...(tlsCertsDir ? { tlsCertsDir } : {}),
      indexCacheMs: 0,
      cacheDir: temp.make("appset-helm-charts-"),
    },
  });
}

const data = (objects: readonly KubeObject[]): Record<string, string> => (objects[0]?.["data"] ?? {}) as Record<string, string>;

let repo: HelmRepoDir;
let server: HelmRepoServer;
beforeAll(async () => {
  repo = new HelmRepoDir(temp);
  for (const v of ["0.1.0", "0.1.5", "0.2.0", "1.0.0", "1.1.0-rc.1"]) repo.add("web", v, web(v));
  server = await serveHelmRepo(repo.dir);
});
afterAll(() => server.stop());

const chartSource = (targetRevision: string, more: Partial<ApplicationSource> = {}): ApplicationSource => ({
  repoURL: server.url,
  chart: "web",
  targetRevision,
  ...more,
});
const read = (src: GitManifestSource, source: ApplicationSource, revision?: string) =>
  src.read(app, source, revision, { cluster: () => Promise.resolve(facts) });

describe("Helm repository sources", () => {
  it("render an exact version with helm, the version as the revision", async () => {
    const got = await read(manifestSource(), chartSource("0.1.5"));
    expect(got.revision).toBe("0.1.5");
    expect(got.sourceType).toBe("Helm");
    expect(got.objects.map((o) => `${o.kind ?? ""}/${o.metadata?.namespace ?? ""}/${o.metadata?.name ?? ""}`)).toEqual([
      "ConfigMap/prod/web-cfg",
    ]);
    expect(data(got.objects)).toMatchObject({ version: "0.1.5", replicas: "1", color: "blue" });
  });

  it.each([
    ["0.*", "0.2.0"],
    ["~0.1", "0.1.5"],
    [">=0.1.0, <1.0.0", "0.2.0"],
    ["^0.1.0 || ^1.0.0", "1.0.0"],
    ["*", "1.0.0"],
    [">0.1.0, !=0.2.0, <1.0.0", "0.1.5"],
    [">=1.1.0-rc.0", "1.1.0-rc.1"],
  ])("resolve the constraint %s to the highest version of the index that meets it (%s)", async (constraint, version) => {
    const got = await read(manifestSource(), chartSource(constraint));
    expect(got.revision).toBe(version);
    expect(data(got.objects)["version"]).toBe(version);
  });

  it("read a sync's pinned version rather than the constraint", async () => {
    const got = await read(manifestSource(), chartSource("0.*"), "0.1.0");
    expect(got.revision).toBe("0.1.0");
    expect(data(got.objects)["version"]).toBe("0.1.0");
  });

  it("apply valueFiles from the chart, inline values, parameters and the release name", async () => {
    const got = await read(
      manifestSource(),
      chartSource("0.2.0", {
        helm: {
          releaseName: "rel",
          valueFiles: ["values-prod.yaml"],
          valuesObject: { color: "green" },
          parameters: [{ name: "revision", value: "$ARGOCD_APP_REVISION" }],
        },
      }),
    );
    expect(got.objects[0]?.metadata?.name).toBe("rel-cfg");
    expect(data(got.objects)).toMatchObject({ version: "0.2.0", replicas: "3", color: "green", revision: "0.2.0" });
  });

  it("pull a version once and render it again from the kept chart", async () => {
    const src = manifestSource();
    const before = server.requests.filter((r) => r.endsWith("web-0.1.0.tgz")).length;
    await read(src, chartSource("0.1.0"));
    await read(src, chartSource("0.1.0", { helm: { valuesObject: { color: "red" } } }));
    expect(server.requests.filter((r) => r.endsWith("web-0.1.0.tgz")).length - before).toBe(1);
  });

  it.each([
    {
      name: "an exact version the index does not have (helm's words in Argo CD's frame)",
      source: (): ApplicationSource => chartSource("9.9.9"),
      message:
        /^error fetching chart: failed to fetch chart: failed running helm: `.*helm pull .*--version 9\.9\.9 .*` failed exit status 1: Error: chart "web" version "9\.9\.9" not found in http:\/\/127\.0\.0\.1:\d+ repository$/,
    },
    {
      name: "a constraint no version meets",
      source: (): ApplicationSource => chartSource("~5.0"),
      message: /^invalid revision: version matching constraint not found in 5 tags$/,
    },
    {
      name: "a chart the index does not list",
      source: (): ApplicationSource => ({ ...chartSource("*"), chart: "nope" }),
      message: /^chart 'nope' not found in index$/,
    },
    {
      name: "a revision that is neither a version nor a constraint",
      source: (): ApplicationSource => chartSource("main"),
      message: /^invalid revision: failed to determine semver constraint: improper constraint: main$/,
    },
  ])("fail with Argo CD's message for $name", async ({ source, message }) => {
    await expect(read(manifestSource(), source())).rejects.toMatchObject({ reason: MANIFEST_ERROR, message });
  });

  it("read a repository whose Secret says enableOCI as an OCI registry, never as an index", async () => {
    const creds = credentialsFromSecrets([repoSecret(server.url, { type: "helm", enableOCI: "true" })]);
    const err = (await read(manifestSource(creds), chartSource("0.1.0")).catch((e: unknown) => e)) as Error & { reason?: string };
    expect(err.reason).toBe(MANIFEST_ERROR);
    expect(err.message).toMatch(/^Helm OCI registries are not configured \(http:\/\/127\.0\.0\.1:\d+\)$/);
  });
});

describe("a Helm repository behind basic auth", () => {
  let guarded: HelmRepoServer;
  beforeAll(async () => {
    guarded = await serveHelmRepo(repo.dir, { auth: { username: "ci", password: "s3cret" } });
  });
  afterAll(() => guarded.stop());
  const secret = (password: string): CredentialsLookup =>
    credentialsFromSecrets([repoSecret(guarded.url, { type: "helm", username: "ci", password })]);
  const guardedSource = (targetRevision: string): ApplicationSource => ({ repoURL: guarded.url, chart: "web", targetRevision });

  it("is read with the repository Secret's username and password (the index, then the pull)", async () => {
    const got = await read(manifestSource(secret("s3cret")), guardedSource("^0.1.0"));
    expect(got.revision).toBe("0.1.5");
    expect(data(got.objects)["version"]).toBe("0.1.5");
  });

  it("takes the credentials from a repo-creds Secret whose URL is a prefix", async () => {
    const template = repoSecret("http://127.0.0.1", { type: "helm", username: "ci", password: "s3cret" }, "creds");
    template.metadata.labels = { "argocd.argoproj.io/secret-type": "repo-creds" };
    const got = await read(manifestSource(credentialsFromSecrets([template])), guardedSource("0.2.0"));
    expect(got.revision).toBe("0.2.0");
  });

  it("fails with a wrong password: the index's 401, or helm's refusal with the password masked", async () => {
    await expect(read(manifestSource(secret("wrong")), guardedSource("^0.1.0"))).rejects.toMatchObject({
      reason: MANIFEST_ERROR,
      message: "error loading repo index: failed to get index: 401 Unauthorized",
    });
    const err = (await read(manifestSource(secret("wrong")), guardedSource("0.1.0")).catch((e: unknown) => e)) as Error;
    expect(err.message).toMatch(
      /^error fetching chart: failed to fetch chart: failed running helm: `.*helm pull .*--username \*{6} --password \*{6} --repo http:\/\/127\.0\.0\.1:\d+ web .*` failed exit status 1: Error: .*401 Unauthorized/,
    );
    expect(err.message).not.toContain("wrong");
  });

  it("fails without credentials", async () => {
    await expect(read(manifestSource(), guardedSource("*"))).rejects.toMatchObject({
      message: "error loading repo index: failed to get index: 401 Unauthorized",
    });
  });
});

describe("a Helm repository over HTTPS with a private CA and client certificates", () => {
  let ca: TestCa;
  let tlsServer: HelmRepoServer;
  let certsDir: string;
  beforeAll(async () => {
    ca = makeTestCa(temp.make("appset-ca-"));
    certsDir = temp.make("appset-tls-certs-");
    tlsServer = await serveHelmRepo(repo.dir, {
      tls: { key: ca.serverKey, cert: ca.serverCert, ca: ca.caCert, requestCert: true, rejectUnauthorized: true },
    });
  });
  afterAll(() => tlsServer.stop());
  const tlsSource = (): ApplicationSource => ({ repoURL: tlsServer.url, chart: "web", targetRevision: "~0.1" });
  const withCert = (): CredentialsLookup =>
    credentialsFromSecrets([repoSecret(tlsServer.url, { type: "helm", tlsClientCertData: ca.clientCert, tlsClientCertKey: ca.clientKey })]);

  it("is refused while no CA for the host is mounted", async () => {
    await expect(read(manifestSource(withCert(), certsDir), tlsSource())).rejects.toMatchObject({
      message: expect.stringMatching(/^error loading repo index: error making HTTP request: Get "https:\/\/localhost:\d+\/index\.yaml": /),
    });
  });

  it("is read with the CA of argocd-tls-certs-cm and the Secret's client certificate (the index, then helm's pull)", async () => {
    writeFileSync(join(certsDir, "localhost"), ca.caCert);
    const got = await read(manifestSource(withCert(), certsDir), tlsSource());
    expect(got.revision).toBe("0.1.5");
    expect(data(got.objects)["version"]).toBe("0.1.5");
  });

  it("with insecure, skips verification but still needs the client certificate", async () => {
    const insecure = credentialsFromSecrets([
      repoSecret(tlsServer.url, { type: "helm", insecure: "true", tlsClientCertData: ca.clientCert, tlsClientCertKey: ca.clientKey }),
    ]);
    const got = await read(manifestSource(insecure), { ...tlsSource(), targetRevision: "0.2.0" });
    expect(got.revision).toBe("0.2.0");
  });
});

describe("the size limits of a Helm repository", () => {
  const limited = (charts: { maxChartBytes?: number; maxIndexBytes?: number }): GitManifestSource =>
    new GitManifestSource(gitReader(temp), {
      tools: { helm, env: {} },
      charts: { indexCacheMs: 0, cacheDir: temp.make("appset-helm-charts-"), ...charts },
    });

  it("refuses an index larger than its limit, and reads it within", async () => {
    await expect(read(limited({ maxIndexBytes: 100 }), chartSource("0.*"))).rejects.toMatchObject({
      reason: MANIFEST_ERROR,
      message: `error loading repo index: Helm repository answered more than 100 bytes for ${server.url}/index.yaml; raise --helm-index-max-bytes to accept a larger answer`,
    });
    await expect(read(limited({ maxIndexBytes: 1_000_000 }), chartSource("0.*"))).resolves.toMatchObject({ revision: "0.2.0" });
  });

  it("refuses a chart that unpacks to more than its limit, and keeps nothing of it", async () => {
    const src = limited({ maxChartBytes: 100 });
    const refused = {
      reason: MANIFEST_ERROR,
      message:
        "error fetching chart: chart 'web' version 0.1.5 unpacks to more than 100 bytes; raise --helm-chart-max-bytes to accept a larger chart",
    };
    await expect(read(src, chartSource("0.1.5"))).rejects.toMatchObject(refused);
    await expect(read(src, chartSource("0.1.5"))).rejects.toMatchObject(refused);
    await expect(read(limited({ maxChartBytes: 1_000_000 }), chartSource("0.1.5"))).resolves.toMatchObject({ revision: "0.1.5" });
  });
});

describe("a Helm repository that never answers", () => {
  let silent: Misbehaving;
  beforeAll(async () => {
    silent = await silentServer();
  });
  afterAll(() => silent.close());
  const stalled = (timeoutMs: number): GitManifestSource =>
    new GitManifestSource(gitReader(temp), {
      tools: { helm, env: {}, timeoutMs },
      charts: { indexCacheMs: 0, cacheDir: temp.make("appset-helm-charts-") },
    });

  it("fails the index request at the time limit", async () => {
    const started = Date.now();
    await expect(read(stalled(500), { repoURL: silent.url, chart: "web", targetRevision: "*" })).rejects.toMatchObject({
      reason: MANIFEST_ERROR,
      message: `error loading repo index: error making HTTP request: Get "${silent.url}/index.yaml": timeout after 0.5s`,
    });
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("kills helm pull at the time limit", async () => {
    await expect(read(stalled(1000), { repoURL: silent.url, chart: "web", targetRevision: "1.0.0" })).rejects.toMatchObject({
      reason: MANIFEST_ERROR,
      message: expect.stringMatching(
        /^error fetching chart: failed to fetch chart: failed running helm: `.*helm pull .*` failed timeout after 1s/,
      ),
    });
  });
});
