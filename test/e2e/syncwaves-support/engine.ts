/**
 * A sync engine in a process of its own, for tests that kill it: reads Applications of one
 * namespace, manifests from Git, and runs until killed. Prints `ready` once started.
 *
 * Usage: tsx engine.ts <kubeconfig> <applications namespace> <git cache dir>
 */
import { SystemClock } from "../../../src/clock/index.js";
import { baseGitEnv, GitRepoReader } from "../../../src/git/index.js";
import { cachedClusterFacts, Discovery, KubeApiClient, type KubeObject } from "../../../src/kube/index.js";
import { silentLogger } from "../../../src/log/logger.js";
import { LocalDestinations } from "../../../src/syncwaves/destinations.js";
import { SyncEngine } from "../../../src/syncwaves/engine.js";
import { GitManifestSource } from "../../../src/syncwaves/git-source.js";

const [kubeconfig, namespace, cacheDir] = process.argv.slice(2);
if (kubeconfig === undefined || namespace === undefined || cacheDir === undefined) {
  process.stderr.write("usage: engine.ts <kubeconfig> <namespace> <git cache dir>\n");
  process.exit(2);
}
const client = KubeApiClient.fromConfig({ kind: "file", path: kubeconfig });
const discovery = new Discovery(client.transport);
const resolve = (o: KubeObject): ReturnType<Discovery["resourceFor"]> => discovery.resourceFor(o.apiVersion ?? "", o.kind ?? "");
const engine = new SyncEngine({
  watch: client,
  namespace,
  client,
  resolve,
  destinations: new LocalDestinations({ id: "local", client, resolve, facts: cachedClusterFacts(client.transport) }),
  source: new GitManifestSource(new GitRepoReader({ localRepositories: true, cacheDir, env: baseGitEnv(process.env) }), {
    tools: { env: process.env },
  }),
  clock: new SystemClock(),
  log: silentLogger(),
  waveDelayMs: 0,
  // An argocd-cm in the applications' namespace customizes the engine as Argo CD's would.
  argoCdNamespace: namespace,
});
engine.start();
process.stdout.write("ready\n");
