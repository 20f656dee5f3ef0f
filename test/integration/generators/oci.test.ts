// The OCI generator against a real registry (CNCF Distribution) with artifacts pushed by the real
// oras and helm: plain HTTP and TLS, token authentication with the `oci` repository Secret's
// credentials, semver revisions, a missing tag, bad credentials, and hostile artifacts.
import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApplicationSetGenerator, Secret } from "../../../src/api/index.js";
import { generateParams } from "../../../src/generators/generate.js";
import { createGeneratorRegistry } from "../../../src/generators/registry.js";
import { credentialsFromSecrets } from "../../../src/git/index.js";
import { RegistryOciReader } from "../../../src/oci/index.js";
import { renderToolsDir } from "../../support/render-tools.js";
import { tarBytes } from "../../support/tar-bytes.js";
import { appSet, context } from "../../unit/generators/builders.js";
import { contentDir, startOciRegistry, type OciRegistry } from "../support/oci-registry.js";
import { makeTestCa, type TestCa } from "../support/test-ca.js";

const run = promisify(execFile);
const USER = { username: "puller", password: "s3cret" };
const root = mkdtempSync(join(tmpdir(), "appset-oci-test-"));

/** Writes files under a fresh directory and returns it. */
const tree = (files: Record<string, string>): string => contentDir(root, files);

function repoSecret(url: string, data: Record<string, string>): Secret {
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: {
      name: `repo-${Math.random().toString(36).slice(2)}`,
      namespace: "argocd",
      labels: { "argocd.argoproj.io/secret-type": "repository" },
    },
    stringData: { type: "oci", url, ...data },
  };
}

/** The generator's parameter sets for one `oci` entry, read with these Secrets and CA bundles. */
async function params(gen: ApplicationSetGenerator["oci"], secrets: Secret[], tlsCertsDir?: string, maxArtifactBytes = 1 << 20) {
  const oci = new RegistryOciReader({
    credentials: credentialsFromSecrets(secrets),
    ...(tlsCertsDir === undefined ? {} : { tlsCertsDir }),
    env: {},
    timeoutMs: 20_000,
    maxArtifactBytes,
    maxArtifactSetting: "--oci-artifact-max-bytes",
  });
  const res = await generateParams(appSet([{ oci: gen! }], { goTemplate: true }), context({ oci }), createGeneratorRegistry());
  return res.flatMap((r) => r.params);
}

const APPS = { "apps/alpha/config.json": '{"env":"dev"}', "apps/beta/config.yaml": "env: prod\n", "apps/.hidden/config.json": "{}" };

describe("over plain HTTP (insecureOCIForceHttp)", () => {
  let registry: OciRegistry;
  beforeAll(async () => {
    registry = await startOciRegistry();
    await registry.pushDirectory("org/apps", "1.0.0", tree(APPS));
    await registry.pushDirectory("org/apps", "1.2.0_build.7", tree({ "apps/gamma/config.json": '{"env":"new"}' }));
    await registry.pushDirectory("org/apps", "2.0.0", tree({ "apps/delta/config.json": "{}" }));
  });
  afterAll(() => registry.stop());
  // Every repository of the registry over plain HTTP: a repo-creds Secret for the registry's URL.
  const plain = (): Secret[] => [
    {
      ...repoSecret(`oci://${registry.host}`, { insecureOCIForceHttp: "true" }),
      metadata: { name: "registry-creds", namespace: "argocd", labels: { "argocd.argoproj.io/secret-type": "repo-creds" } },
    },
  ];

  it("lists the artifact's directories, hidden ones left out", async () => {
    const got = await params({ repoURL: registry.url("org/apps"), revision: "1.0.0", directories: [{ path: "apps/*" }] }, plain());
    expect(got.map((p) => (p["path"] as { path: string }).path)).toEqual(["apps/alpha", "apps/beta"]);
  });

  it("reads the files, YAML and JSON, with the Git generator's parameters", async () => {
    const got = await params({ repoURL: registry.url("org/apps"), revision: "1.0.0", files: [{ path: "apps/*/config.*" }] }, plain());
    expect(got.map((p) => [p["env"], (p["path"] as { basename: string }).basename])).toEqual([
      [undefined, ".hidden"],
      ["dev", "alpha"],
      ["prod", "beta"],
    ]);
  });

  it("resolves a semver constraint to the highest matching tag, _ read as +", async () => {
    const got = await params({ repoURL: registry.url("org/apps"), revision: "^1.0.0", files: [{ path: "**/config.json" }] }, plain());
    expect(got.map((p) => p["env"])).toEqual(["new"]);
  });

  it("fails on a tag the registry does not have, naming it as Argo CD does", async () => {
    await expect(params({ repoURL: registry.url("org/apps"), revision: "9.9.9", directories: [{ path: "*" }] }, plain())).rejects.toThrow(
      `error generating params from oci: error getting directories from oci: error retrieving OCI directories: rpc error: code = Internal desc = unable to resolve OCI revision 9.9.9: failed to resolve revision "9.9.9": cannot get digest for revision 9.9.9: ${registry.host}/org/apps:9.9.9: not found`,
    );
  });

  it("fails when no tag meets a constraint", async () => {
    await expect(params({ repoURL: registry.url("org/apps"), revision: ">=5.0.0", directories: [{ path: "*" }] }, plain())).rejects.toThrow(
      "no version for constraints: version matching constraint not found in 3 tags",
    );
  });

  it("refuses an artifact with two content layers, and one with a path leaving it", async () => {
    const dir = tree({ "a.json": "{}", "b.json": "{}" });
    await registry.oras(
      [
        "push",
        `${registry.host}/org/two:1`,
        "a.json:application/vnd.oci.image.layer.v1.tar",
        "b.json:application/vnd.oci.image.layer.v1.tar",
      ],
      dir,
    );
    await expect(params({ repoURL: registry.url("org/two"), revision: "1", directories: [{ path: "*" }] }, plain())).rejects.toThrow(
      "expected only a single oci content layer, got 2",
    );
    const evil = tarBytes([
      { name: "apps/ok/config.json", body: "{}" },
      { name: "../../../../tmp/appset-oci-escape", body: "pwned" },
    ]);
    writeFileSync(join(dir, "evil.tar"), evil);
    await registry.oras(["push", `${registry.host}/org/evil:1`, "evil.tar:application/vnd.oci.image.layer.v1.tar"], dir);
    await expect(params({ repoURL: registry.url("org/evil"), revision: "1", files: [{ path: "**" }] }, plain())).rejects.toThrow(
      /could not decompress layer: path "\.\.\/\.\.\/\.\.\/\.\.\/tmp\/appset-oci-escape" escapes from the artifact/,
    );
  });

  it("refuses an artifact larger than the limit instead of reading it", async () => {
    await registry.pushDirectory("org/big", "1", tree({ "big.json": JSON.stringify({ x: "y".repeat(200_000) }) }));
    await expect(
      params({ repoURL: registry.url("org/big"), revision: "1", files: [{ path: "*" }] }, plain(), undefined, 100_000),
    ).rejects.toThrow("raise --oci-artifact-max-bytes to read it");
  });

  it("reads a chart pushed with helm push from its chart directory", async () => {
    const chart = tree({
      "mychart/Chart.yaml": "apiVersion: v2\nname: mychart\nversion: 0.1.0\n",
      "mychart/templates/cm.yaml": "kind: ConfigMap\n",
    });
    await run(join(renderToolsDir(), "helm"), ["package", join(chart, "mychart"), "-d", chart]);
    await run(join(renderToolsDir(), "helm"), ["push", join(chart, "mychart-0.1.0.tgz"), `oci://${registry.host}/charts`, "--plain-http"], {
      env: { ...process.env, HOME: chart },
    });
    const got = await params({ repoURL: registry.url("charts/mychart"), revision: "0.1.0", files: [{ path: "Chart.yaml" }] }, plain());
    expect(got.map((p) => p["name"])).toEqual(["mychart"]);
  });
});

describe("over TLS with token authentication", () => {
  let registry: OciRegistry;
  let ca: TestCa;
  let certs: string;
  beforeAll(async () => {
    ca = makeTestCa(mkdtempSync(join(root, "ca-")));
    certs = mkdtempSync(join(root, "tls-"));
    writeFileSync(join(certs, "127.0.0.1"), ca.caCert);
    registry = await startOciRegistry({ tls: ca, user: USER });
    await registry.pushDirectory("team/apps", "1.0.0", tree(APPS));
  });
  afterAll(() => registry.stop());
  const gen = () => ({ repoURL: registry.url("team/apps"), revision: "1.0.0", directories: [{ path: "apps/*" }] });

  it("reads with the repository Secret's credentials and the CA bundle of argocd-tls-certs-cm", async () => {
    const before = registry.tokens.granted;
    const got = await params(gen(), [repoSecret(registry.url("team/apps"), USER)], certs);
    expect(got).toHaveLength(2);
    expect(registry.tokens.granted).toBeGreaterThan(before);
  });

  it("takes the credentials of a repo-creds Secret whose URL is a prefix", async () => {
    const creds: Secret = {
      ...repoSecret(`oci://${registry.host}/team`, USER),
      metadata: { name: "team-creds", namespace: "argocd", labels: { "argocd.argoproj.io/secret-type": "repo-creds" } },
    };
    expect(await params(gen(), [creds], certs)).toHaveLength(2);
  });

  it("fails with the token service's refusal for a wrong password, never as no results", async () => {
    await expect(params(gen(), [repoSecret(registry.url("team/apps"), { ...USER, password: "wrong" })], certs)).rejects.toThrow(
      /unable to resolve OCI revision 1\.0\.0: .*response status code 401/,
    );
  });

  it("fails without credentials", async () => {
    await expect(params(gen(), [], certs)).rejects.toThrow(/unable to resolve OCI revision 1\.0\.0: .*401/);
  });

  it("fails the TLS check without the CA bundle, and reads with insecure", async () => {
    await expect(params(gen(), [repoSecret(registry.url("team/apps"), USER)])).rejects.toThrow(/certificate/);
    expect(await params(gen(), [repoSecret(registry.url("team/apps"), { ...USER, insecure: "true" })])).toHaveLength(2);
  });
});
