/**
 * `appset diff APP` (docs/cli.md): for clusters where the built-in sync engine syncs Applications,
 * the engine's own comparison of an Application's manifests with the live objects, read with the
 * kubeconfig's identity and printed as a unified diff per resource, as `argocd app diff` prints it.
 * The manifests come from the engine's manifest source (with the repository Secrets of the
 * Application's namespace as credentials), the live objects from the local cluster. Exit codes, as
 * argocd's: 0 no difference, 1 a difference (0 with `--exit-code false`), 2 an error.
 */
import { tmpdir } from "node:os";
import { parseArgs } from "node:util";
import type { Application, Secret } from "../api/index.js";
import { SystemClock } from "../clock/index.js";
import { parseConfig, type Config, type Env } from "../config/index.js";
import { errorMessage } from "../errors.js";
import { credentialsFromSecrets, gitCacheDir, type CredentialsLookup } from "../git/index.js";
import { isForbidden, resources, type KubeApiClient } from "../kube/index.js";
import { REPO_SECRET_SELECTOR } from "../manager/index.js";
import { observe } from "../syncwaves/observe.js";
import { yaml } from "../yaml.js";
import { getApplication } from "./app-cluster.js";
import { formatDiffs, resourceDiffs } from "./app-diff.js";
import { APP_COMMANDS } from "./app-flags.js";
import { AppSetCommandError } from "./appset-cluster.js";
import { isUsage, UsageError } from "./appset-commands.js";
import { commandSpec, commandUsage, parseArgsOptions } from "./appset-flags.js";
import { localClusterAccess, manifestSource } from "./engine-parts.js";
import { offlineGitReader } from "./git.js";
import { kubeconfigAccess, type KubeAccess, type KubeFlags, type RolloutIO } from "./rollout-commands.js";

interface DiffFlags {
  readonly name: string;
  readonly namespace?: string;
  readonly exitCode: boolean;
  readonly kube: KubeFlags;
}

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

/** The flags, or undefined for `--help`. */
function parseDiffFlags(args: readonly string[]): DiffFlags | undefined {
  const spec = commandSpec("diff", APP_COMMANDS);
  const { values, positionals } = parseArgs({ args: [...args], options: parseArgsOptions(spec), allowPositionals: true, strict: true });
  const v = values as Record<string, unknown>;
  if (v["help"] === true) return undefined;
  if (positionals.length !== 1) throw new UsageError("appset diff takes one Application name");
  const exitCode = str(v["exit-code"]) ?? "true";
  if (exitCode !== "true" && exitCode !== "false") throw new UsageError(`--exit-code takes true or false, not "${exitCode}"`);
  const [namespace, kubeconfig, context] = [str(v["namespace"]), str(v["kubeconfig"]), str(v["context"])];
  return {
    name: positionals[0]!,
    ...(namespace === undefined ? {} : { namespace }),
    exitCode: exitCode === "true",
    kube: { ...(kubeconfig === undefined ? {} : { kubeconfig }), ...(context === undefined ? {} : { context }) },
  };
}

/** The in-cluster destination's server URL and name. */
const IN_CLUSTER = { server: "https://kubernetes.default.svc", name: "in-cluster" };

/** Refuses an Application whose destination is not the local cluster (only that one is reached). */
function requireLocal(app: Application): void {
  const { server, name } = app.spec.destination;
  if ((server === undefined || server === IN_CLUSTER.server) && (name === undefined || name === IN_CLUSTER.name)) return;
  const where = server ?? name ?? "";
  throw new AppSetCommandError(
    `application ${app.metadata.name ?? ""}'s destination ${where} is not the local cluster: appset diff compares against the kubeconfig's cluster only`,
  );
}

/** The repository credentials of the namespace's Secrets; none when the caller may not list Secrets. */
async function repoCredentials(client: KubeApiClient, namespace: string): Promise<CredentialsLookup> {
  try {
    const { items } = await client.list(resources.Secrets, { namespace, labelSelector: REPO_SECRET_SELECTOR });
    return credentialsFromSecrets(items as unknown as Secret[]);
  } catch (err) {
    if (isForbidden(err)) return credentialsFromSecrets([]);
    throw err;
  }
}

/** The settings the manifest source reads (time limits, size limits): the environment's, else the defaults. */
function settings(env: Env): Config {
  const res = parseConfig([], env);
  if (res.kind !== "config") throw new Error(res.kind === "error" ? res.message : "no configuration");
  return res.config;
}

async function diff(f: DiffFlags, io: RolloutIO, client: KubeApiClient, contextNamespace: string | undefined): Promise<number> {
  const namespace = f.namespace ?? contextNamespace ?? "argocd";
  const app = await getApplication(client, namespace, f.name);
  requireLocal(app);
  const clock = io.clock ?? new SystemClock();
  const credentials = await repoCredentials(client, namespace);
  const git = offlineGitReader({ env: io.env, clock, cacheDir: gitCacheDir("", tmpdir()), credentials, baseDir: io.cwd ?? process.cwd() });
  const source = manifestSource({ config: settings(io.env), env: io.env, clock, git, credentials });
  const observed = await observe({ app, access: localClusterAccess(client), source, trackingName: app.metadata.name ?? "" });
  const toYaml = (v: unknown): string => yaml().stringify(v, { lineWidth: 0 });
  const diffs = resourceDiffs({ ...observed, ignoreDifferences: app.spec.ignoreDifferences ?? [] }, toYaml);
  io.out(formatDiffs(diffs));
  return diffs.length > 0 && f.exitCode ? 1 : 0;
}

/** Runs `appset diff ARGS`; resolves to the exit code. */
export async function diffCommand(args: readonly string[], io: RolloutIO): Promise<number> {
  const usage = commandUsage(commandSpec("diff", APP_COMMANDS));
  let kube: KubeAccess | undefined;
  try {
    const f = parseDiffFlags(args);
    if (f === undefined) {
      io.out(usage);
      return 0;
    }
    const access = kubeconfigAccess(f.kube, io.env, "appset-cli");
    kube = access;
    return await diff(f, io, access.client, access.contextNamespace);
  } catch (err) {
    io.err(isUsage(err) ? `appset diff: ${errorMessage(err)}\n\n${usage}` : `appset diff: ${errorMessage(err)}\n`);
    return 2;
  } finally {
    await kube?.close();
  }
}
