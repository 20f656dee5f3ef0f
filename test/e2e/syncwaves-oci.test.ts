/**
 * The sync engine deploying from OCI registries on the real control plane: an Application whose
 * source is an `oci://` artifact pushed with oras (a directory of manifests), and one whose source
 * is a chart pushed with `helm push` to a Helm OCI registry (a scheme-less `repoURL` and `chart`),
 * both from a real registry (CNCF Distribution) over plain HTTP as the repository Secrets allow.
 * Asserted: the deployed objects, and the revisions written to the status and the operation (the
 * artifact's manifest digest; the chart's version).
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Application, ApplicationSource, Secret } from "../../src/api/index.js";
import { SystemClock } from "../../src/clock/index.js";
import { credentialsFromSecrets } from "../../src/git/index.js";
import { cachedClusterFacts, Discovery, KubeApiClient, resources, type KubeObject, type ResourceDescriptor } from "../../src/kube/index.js";
import { silentLogger } from "../../src/log/logger.js";
import { RegistryOciReader } from "../../src/oci/index.js";
import { LocalDestinations } from "../../src/syncwaves/destinations.js";
import { SyncEngine } from "../../src/syncwaves/engine.js";
import { GitManifestSource } from "../../src/syncwaves/git-source.js";
import { gitReader, TempDirs } from "../integration/support/git-repos.js";
import { contentDir, startOciRegistry, type OciRegistry } from "../integration/support/oci-registry.js";
import { renderToolsDir } from "../support/render-tools.js";
import { createNamespace, deleteNamespace, sharedKubeConfig } from "./support/namespace.js";
import { configMap, operationDone, R } from "./syncwaves-support/cluster.js";

const run = promisify(execFile);
const kc = sharedKubeConfig();
const client = KubeApiClient.fromConfig({ kind: "file", path: inject("kubeconfigPath") });
const discovery = new Discovery(client.transport);
const resolve = (o: KubeObject): Promise<ResourceDescriptor> => discovery.resourceFor(o.apiVersion ?? "", o.kind ?? "");
const temp = new TempDirs();
const helm = join(renderToolsDir(), "helm");

let registry: OciRegistry;
let engine: SyncEngine | undefined;
let appNs = "";
let ns = "";

/** The repository Secrets: every repository of the registry over plain HTTP, its charts as a Helm OCI registry. */
function secrets(): Secret[] {
  const secret = (name: string, kind: string, data: Record<string, string>): Secret => ({
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name, namespace: appNs, labels: { "argocd.argoproj.io/secret-type": kind } },
    stringData: data,
  });
  return [
    secret("registry", "repo-creds", { type: "oci", url: `oci://${registry.host}`, insecureOCIForceHttp: "true" }),
    secret("charts", "repository", { type: "helm", url: `${registry.host}/charts`, enableOCI: "true", insecureOCIForceHttp: "true" }),
  ];
}

beforeAll(async () => {
  appNs = await createNamespace(kc, "swoci-apps");
  ns = await createNamespace(kc, "swoci");
  registry = await startOciRegistry();
  const root = temp.make("appset-e2e-oci-");
  await registry.pushDirectory("org/apps", "1.0.0", contentDir(root, { "apps/web/cm.yaml": configMap("from-oci") }));
  const chart = contentDir(root, {
    "mychart/Chart.yaml": "apiVersion: v2\nname: mychart\nversion: 0.3.0\n",
    "mychart/templates/cm.yaml":
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: "{{ .Release.Name }}-cfg"}\ndata: {version: "{{ .Chart.Version }}"}\n',
  });
  await run(helm, ["package", join(chart, "mychart"), "-d", chart]);
  await run(helm, ["push", join(chart, "mychart-0.3.0.tgz"), `oci://${registry.host}/charts`, "--plain-http"], {
    env: { ...process.env, HOME: chart },
  });
  const credentials = credentialsFromSecrets(secrets());
  const oci = new RegistryOciReader({
    credentials,
    env: {},
    timeoutMs: 20_000,
    maxArtifactBytes: 1 << 20,
    maxArtifactSetting: "--oci-artifact-max-bytes",
  });
  engine = new SyncEngine({
    watch: client,
    namespace: appNs,
    client,
    resolve,
    destinations: new LocalDestinations({ id: "local", client, resolve, facts: cachedClusterFacts(client.transport) }),
    source: new GitManifestSource(gitReader(temp), { tools: { helm, env: {} }, charts: { credentials }, oci }),
    clock: new SystemClock(),
    log: silentLogger(),
    waveDelayMs: 0,
  });
  engine.start();
});

afterAll(async () => {
  await engine?.stop();
  await registry?.stop();
  await deleteNamespace(kc, appNs).catch(() => undefined);
  await deleteNamespace(kc, ns).catch(() => undefined);
  await client.transport.close();
  temp.cleanup();
});

/** An Application of the default project deploying `source` to the test namespace, with a sync requested. */
function application(name: string, source: ApplicationSource): Application {
  return {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "Application",
    metadata: { name, namespace: appNs },
    spec: { project: "default", destination: { server: "https://kubernetes.default.svc", namespace: ns }, source },
    operation: { sync: {} },
  };
}

async function digestOf(ref: string): Promise<string> {
  return (await registry.oras(["resolve", `${registry.host}/${ref}`])).trim();
}

describe("sync engine with OCI sources on a real control plane", () => {
  it("deploys an oci:// directory artifact, the manifest digest as the revision", async () => {
    const source = { repoURL: registry.url("org/apps"), targetRevision: "1.0.0", path: "apps/web" };
    await client.create(resources.Applications, application("oci-dir", source));
    const app = await operationDone(client, appNs, "oci-dir");
    const digest = await digestOf("org/apps:1.0.0");
    expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect({
      phase: app.status?.operationState?.phase,
      operation: app.status?.operationState?.syncResult?.revision,
      sync: app.status?.sync?.revision,
      sourceType: app.status?.sourceType,
    }).toEqual({ phase: "Succeeded", operation: digest, sync: digest, sourceType: "Directory" });
    const cm = await client.get(R.ConfigMaps, { namespace: ns, name: "from-oci" });
    expect(cm.metadata?.name).toBe("from-oci");
  });

  it("deploys a chart from a Helm OCI registry, the chart version as the revision", async () => {
    const source = { repoURL: `${registry.host}/charts`, chart: "mychart", targetRevision: ">=0.1.0" };
    await client.create(resources.Applications, application("oci-chart", source));
    const app = await operationDone(client, appNs, "oci-chart");
    expect({
      phase: app.status?.operationState?.phase,
      message: app.status?.operationState?.message,
      operation: app.status?.operationState?.syncResult?.revision,
      sync: app.status?.sync?.revision,
      sourceType: app.status?.sourceType,
    }).toEqual({
      phase: "Succeeded",
      message: "successfully synced (all tasks run)",
      operation: "0.3.0",
      sync: "0.3.0",
      sourceType: "Helm",
    });
    const cm = await client.get(R.ConfigMaps, { namespace: ns, name: "oci-chart-cfg" });
    expect(cm["data"]).toEqual({ version: "0.3.0" });
  });
});
