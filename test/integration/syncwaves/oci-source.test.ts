/**
 * OCI Application sources against a real registry (CNCF Distribution): artifacts pushed with the
 * real oras (a directory of manifests, a kustomization) and the real helm (`helm push` of a
 * chart), read by the sync engine's manifest source and rendered with the helm and kustomize
 * Argo CD v3.6 ships. The revision is the artifact's manifest digest.
 */
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Application, ApplicationSource, Secret } from "../../../src/api/index.js";
import { credentialsFromSecrets } from "../../../src/git/index.js";
import type { KubeObject } from "../../../src/kube/index.js";
import { RegistryOciReader } from "../../../src/oci/index.js";
import { GitManifestSource } from "../../../src/syncwaves/git-source.js";
import { MANIFEST_ERROR } from "../../../src/syncwaves/manifests.js";
import { renderToolsDir } from "../../support/render-tools.js";
import { gitReader, TempDirs } from "../support/git-repos.js";
import { contentDir, startOciRegistry, type OciRegistry } from "../support/oci-registry.js";
import { makeTestCa } from "../support/test-ca.js";

const run = promisify(execFile);
const helm = join(renderToolsDir(), "helm");
const kustomize = join(renderToolsDir(), "kustomize");
const temp = new TempDirs();
afterAll(() => temp.cleanup());
const root = temp.make("appset-oci-source-");

/** Writes files under a fresh directory and returns it. */
const tree = (files: Record<string, string>): string => contentDir(root, files);

const cm = (name: string, data = "v: one"): string => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  ${data}\n`;

/** The chart's ConfigMap shows its version, a value and the revision it was rendered at. */
const CHART = {
  "mychart/Chart.yaml": "apiVersion: v2\nname: mychart\nversion: 0.1.0\n",
  "mychart/values.yaml": "color: blue\n",
  "mychart/templates/cm.yaml":
    'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: "{{ .Release.Name }}-cfg"}\ndata:\n  version: "{{ .Chart.Version }}"\n  color: "{{ .Values.color }}"\n',
};

const app: Application = { metadata: { name: "web" }, spec: { destination: { namespace: "prod" }, project: "default" } };
const facts = { kubeVersion: "v1.36.3", apiVersions: ["v1"] };
const names = (objects: readonly KubeObject[]): string[] => objects.map((o) => `${o.kind ?? ""}/${o.metadata?.name ?? ""}`);

let registry: OciRegistry;
/** The manifest digest of each pushed reference. */
const digests = new Map<string, string>();

async function digestOf(ref: string): Promise<string> {
  return (await registry.oras(["resolve", `${registry.host}/${ref}`])).trim();
}

beforeAll(async () => {
  registry = await startOciRegistry();
  await registry.pushDirectory("org/apps", "1.0.0", tree({ "apps/web/cm.yaml": cm("web"), "apps/web/README.md": "not a manifest" }));
  await registry.pushDirectory("org/apps", "1.2.0", tree({ "apps/web/cm.yaml": cm("web", "v: two") }));
  await registry.pushDirectory(
    "org/kust",
    "1",
    tree({ "kustomization.yaml": "resources: [cm.yaml]\nnamePrefix: k-\n", "cm.yaml": cm("base") }),
  );
  const chart = tree(CHART);
  for (const version of ["0.1.0", "0.2.0+build.3"]) {
    writeFileSync(join(chart, "mychart", "Chart.yaml"), `apiVersion: v2\nname: mychart\nversion: ${version}\n`);
    await run(helm, ["package", join(chart, "mychart"), "-d", chart]);
    await run(helm, ["push", join(chart, `mychart-${version}.tgz`), `oci://${registry.host}/charts`, "--plain-http"], {
      env: { ...process.env, HOME: chart },
    });
  }
  for (const ref of ["org/apps:1.0.0", "org/apps:1.2.0", "org/kust:1", "charts/mychart:0.1.0"]) digests.set(ref, await digestOf(ref));
});
afterAll(() => registry.stop());

/** Every repository of the registry over plain HTTP: a repo-creds Secret for the registry's URL. */
function plainHttp(): Secret[] {
  return [
    {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "registry-creds", namespace: "argocd", labels: { "argocd.argoproj.io/secret-type": "repo-creds" } },
      stringData: { type: "oci", url: `oci://${registry.host}`, insecureOCIForceHttp: "true" },
    },
  ];
}

function manifestSource(secrets: Secret[] = plainHttp(), tlsCertsDir?: string): GitManifestSource {
  const credentials = credentialsFromSecrets(secrets);
  const oci = new RegistryOciReader({
    credentials,
    ...(tlsCertsDir === undefined ? {} : { tlsCertsDir }),
    env: {},
    timeoutMs: 20_000,
    maxArtifactBytes: 1 << 20,
    maxArtifactSetting: "--oci-artifact-max-bytes",
  });
  return new GitManifestSource(gitReader(temp), { tools: { helm, kustomize, env: {} }, charts: { credentials }, oci });
}

const source = (repository: string, targetRevision: string, more: Partial<ApplicationSource> = {}): ApplicationSource => ({
  repoURL: registry.url(repository),
  targetRevision,
  path: ".",
  ...more,
});
const read = (src: GitManifestSource, s: ApplicationSource, revision?: string) =>
  src.read(app, s, revision, { cluster: () => Promise.resolve(facts) });

describe("OCI artifact sources", () => {
  it("read a directory at a path of the artifact, the manifest digest as the revision", async () => {
    const got = await read(manifestSource(), source("org/apps", "1.0.0", { path: "apps/web" }));
    expect(got.revision).toBe(digests.get("org/apps:1.0.0"));
    expect(got.revision).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(got.sourceType).toBe("Directory");
    expect(names(got.objects)).toEqual(["ConfigMap/web"]);
  });

  it.each([
    { name: "a semver constraint resolves to the highest tag", revision: "^1.0.0", tag: "org/apps:1.2.0", v: "two" },
    { name: "a digest is read as it is", revision: "", tag: "org/apps:1.0.0", v: "one" },
  ])("$name", async ({ revision, tag, v }) => {
    const at = revision === "" ? digests.get(tag)! : revision;
    const got = await read(manifestSource(), source("org/apps", at, { path: "apps/web" }));
    expect(got.revision).toBe(digests.get(tag));
    expect(got.objects[0]?.["data"]).toEqual({ v });
  });

  it("read a sync's pinned digest rather than targetRevision", async () => {
    const got = await read(manifestSource(), source("org/apps", "1.2.0", { path: "apps/web" }), digests.get("org/apps:1.0.0"));
    expect(got.objects[0]?.["data"]).toEqual({ v: "one" });
  });

  it("render a kustomization with kustomize", async () => {
    const got = await read(manifestSource(), source("org/kust", "1"));
    expect(got.sourceType).toBe("Kustomize");
    expect(names(got.objects)).toEqual(["ConfigMap/k-base"]);
  });

  it("render a chart pushed with helm push from its chart directory, the digest as ARGOCD_APP_REVISION", async () => {
    const got = await read(
      manifestSource(),
      source("charts/mychart", "0.1.0", {
        helm: { valuesObject: { color: "green" }, parameters: [{ name: "x", value: "$ARGOCD_APP_REVISION" }] },
      }),
    );
    expect(got.revision).toBe(digests.get("charts/mychart:0.1.0"));
    expect(got.sourceType).toBe("Helm");
    expect(names(got.objects)).toEqual(["ConfigMap/web-cfg"]);
    expect(got.objects[0]?.["data"]).toEqual({ version: "0.1.0", color: "green" });
  });

  it.each([
    {
      name: "a tag the registry does not have",
      s: (): ApplicationSource => source("org/apps", "9.9.9"),
      message: (): string =>
        `failed to resolve revision "9.9.9": cannot get digest for revision 9.9.9: ${registry.host}/org/apps:9.9.9: not found`,
    },
    {
      name: "a constraint no tag meets",
      s: (): ApplicationSource => source("org/apps", ">=5.0.0"),
      message: (): string =>
        `failed to resolve revision ">=5.0.0": no version for constraints: version matching constraint not found in 2 tags`,
    },
    {
      name: "a path the artifact does not hold",
      s: (): ApplicationSource => source("org/apps", "1.0.0", { path: "apps/nope" }),
      message: (): string => "apps/nope: app path does not exist",
    },
  ])("fail as a manifest error on $name", async ({ s, message }) => {
    const err = (await read(manifestSource(), s()).catch((e: unknown) => e)) as Error & { reason?: string };
    expect(err.message).toBe(message());
    expect(err.reason).toBe(MANIFEST_ERROR);
  });

  it("fail over HTTPS when the registry speaks plain HTTP and no Secret says insecureOCIForceHttp", async () => {
    const err = (await read(manifestSource([]), source("org/apps", "1.0.0")).catch((e: unknown) => e)) as Error & { reason?: string };
    expect(err.reason).toBe(MANIFEST_ERROR);
    expect(err.message).toMatch(/^failed to resolve revision "1\.0\.0": cannot get digest for revision 1\.0\.0: /);
  });
});

/** A `type: helm` repository Secret for the registry's charts, OCI enabled, over plain HTTP. */
function helmOciSecret(url: string): Secret {
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "charts", namespace: "argocd", labels: { "argocd.argoproj.io/secret-type": "repository" } },
    stringData: { type: "helm", url, enableOCI: "true", insecureOCIForceHttp: "true" },
  };
}

describe("Helm OCI registries", () => {
  const chartSource = (targetRevision: string, more: Partial<ApplicationSource> = {}): ApplicationSource => ({
    repoURL: `${registry.host}/charts`,
    chart: "mychart",
    targetRevision,
    ...more,
  });

  it.each([
    { name: "an exact version", revision: "0.1.0", want: "0.1.0" },
    { name: "a constraint, resolved against the chart's tags (_ read as +)", revision: "^0.1.0 || ^0.2.0", want: "0.2.0+build.3" },
  ])("render $name with helm, the version as the revision", async ({ revision, want }) => {
    const src = manifestSource([helmOciSecret(`${registry.host}/charts`)]);
    const got = await read(src, chartSource(revision, { helm: { valuesObject: { color: "red" } } }));
    expect(got.revision).toBe(want);
    expect(got.sourceType).toBe("Helm");
    expect(names(got.objects)).toEqual(["ConfigMap/web-cfg"]);
    expect(got.objects[0]?.["data"]).toEqual({ version: want, color: "red" });
  });

  it("read a sync's pinned version rather than the constraint", async () => {
    const got = await read(manifestSource([helmOciSecret(`${registry.host}/charts`)]), chartSource("*"), "0.1.0");
    expect(got.revision).toBe("0.1.0");
  });

  it.each([
    {
      name: "a constraint no tag meets",
      revision: "^9.0.0",
      message: (): string => "invalid revision: version matching constraint not found in 2 tags",
    },
    {
      name: "a version the registry does not have",
      revision: "9.9.9",
      message: (): string =>
        `error pulling OCI chart: failed to resolve revision "9.9.9": cannot get digest for revision 9.9.9: ${registry.host}/charts/mychart:9.9.9: not found`,
    },
  ])("fail as a manifest error on $name", async ({ revision, message }) => {
    const src = manifestSource([helmOciSecret(`${registry.host}/charts`)]);
    const err = (await read(src, chartSource(revision)).catch((e: unknown) => e)) as Error & { reason?: string };
    expect(err.message).toBe(message());
    expect(err.reason).toBe(MANIFEST_ERROR);
  });
});

describe("a Helm OCI registry over TLS with token authentication", () => {
  const USER = { username: "puller", password: "s3cret" };
  let secure: OciRegistry;
  let certs: string;
  beforeAll(async () => {
    const ca = makeTestCa(temp.make("appset-oci-ca-"));
    certs = temp.make("appset-oci-tls-");
    writeFileSync(join(certs, "127.0.0.1"), ca.caCert);
    secure = await startOciRegistry({ tls: ca, user: USER });
    const chart = tree(CHART);
    await run(helm, ["package", join(chart, "mychart"), "-d", chart]);
    // As `helm push` lays a chart out: the Helm config media type, the chart archive as the one layer.
    writeFileSync(join(chart, "config.json"), '{"name":"mychart","version":"0.1.0"}');
    await secure.oras(
      [
        "push",
        `${secure.host}/charts/mychart:0.1.0`,
        "--config",
        "config.json:application/vnd.cncf.helm.config.v1+json",
        "mychart-0.1.0.tgz:application/vnd.cncf.helm.chart.content.v1.tar+gzip",
      ],
      chart,
    );
  });
  afterAll(() => secure.stop());

  const secret = (password: string): Secret => ({
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "charts", namespace: "argocd", labels: { "argocd.argoproj.io/secret-type": "repository" } },
    stringData: { type: "helm", url: `${secure.host}/charts`, enableOCI: "true", username: USER.username, password },
  });
  const source = (): ApplicationSource => ({ repoURL: `${secure.host}/charts`, chart: "mychart", targetRevision: ">=0.1.0" });

  it("lists tags and pulls with the registry Secret's credentials and the CA bundle of its host", async () => {
    const before = secure.tokens.granted;
    const got = await read(manifestSource([secret(USER.password)], certs), source());
    expect(got.revision).toBe("0.1.0");
    expect(names(got.objects)).toEqual(["ConfigMap/web-cfg"]);
    expect(secure.tokens.granted).toBeGreaterThan(before);
  });

  it("fails with the registry's refusal when the password is wrong", async () => {
    const err = (await read(manifestSource([secret("wrong")], certs), source()).catch((e: unknown) => e)) as Error & { reason?: string };
    expect(err.reason).toBe(MANIFEST_ERROR);
    expect(err.message).toMatch(/^unable to get tags: failed to get tags: /);
  });
});
