/**
 * `helm pull` of one chart version, with the arguments Argo CD's repo-server gives it (`Fetch`):
 * `--destination`, `--version`, `--username`/`--password`, `--insecure-skip-tls-verify`, `--repo`,
 * the chart, `--ca-file`, `--cert-file`/`--key-file` (written to 0600 files for the run) and
 * `--pass-credentials`; then `--untar`, so the real helm also unpacks the chart (Argo CD unpacks
 * the archive itself). The credentials are masked in errors as Argo CD masks them
 * (`--password ******`). The repository's proxy is set in helm's environment. The unpacked chart
 * may hold at most `maxBytes` (default 1G, Argo CD's `--helm-manifest-max-extracted-size`); a
 * larger one fails the pull and is not kept.
 *
 * I/O boundary: the helm process and its temporary files.
 */
import { lstat, mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AppSetError } from "../../errors.js";
import { bytesText } from "../../response-limit.js";
import { MANIFEST_ERROR } from "../manifests.js";
import { runTool } from "../render/tool.js";
import { toolBaseEnv } from "../render/tool-env.js";
import type { HelmAccess } from "./access.js";

/** One pull. */
export interface ChartPull {
  /** The helm program. */
  readonly helm: string;
  readonly repoURL: string;
  readonly chart: string;
  readonly version: string;
  readonly access: HelmAccess;
  /** `helm.passCredentials`: send the credentials to every host the chart is downloaded from. */
  readonly passCredentials: boolean;
  readonly timeoutMs: number;
  /** This process's environment; helm inherits only its allowed variables ({@link toolBaseEnv}). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly signal?: AbortSignal | undefined;
  /** Most bytes the unpacked chart may hold (default {@link DEFAULT_HELM_CHART_MAX_BYTES}). */
  readonly maxBytes?: number | undefined;
}

/** Default largest unpacked chart: Argo CD's repo-server `--helm-manifest-max-extracted-size` ("1G"). */
export const DEFAULT_HELM_CHART_MAX_BYTES = 1_000_000_000;

/** The bytes of the regular files below `dir` (links are not followed), stopping once past `limit`. */
export async function treeBytes(dir: string, limit: number): Promise<number> {
  let total = 0;
  const walk = async (d: string): Promise<void> => {
    for (const entry of await readdir(d, { withFileTypes: true })) {
      if (total > limit) return;
      const path = join(d, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile()) total += (await lstat(path)).size;
    }
  };
  await walk(dir);
  return total;
}

/** Fails when the unpacked chart is larger than the pull's limit. */
async function checkUnpacked(p: ChartPull, destination: string): Promise<void> {
  const limit = p.maxBytes ?? DEFAULT_HELM_CHART_MAX_BYTES;
  if ((await treeBytes(destination, limit)) <= limit) return;
  throw new AppSetError(
    MANIFEST_ERROR,
    `error fetching chart: chart '${p.chart}' version ${p.version} unpacks to more than ${bytesText(limit)}; raise --helm-chart-max-bytes to accept a larger chart`,
  );
}

/** Argo CD's redactor of helm command lines. */
export function redactHelm(text: string): string {
  return text.replace(/(--username|--password) [^ ]*/g, "$1 ******");
}

/** The arguments of the pull into `destination`, in Argo CD's order; `files` are the client certificate files. */
export function pullArgs(p: ChartPull, destination: string, files: { cert?: string; key?: string }): string[] {
  const { access } = p;
  const args = ["pull", "--destination", destination];
  if (p.version !== "") args.push("--version", p.version);
  if (access.username !== undefined && access.username !== "") args.push("--username", access.username);
  if (access.password !== undefined && access.password !== "") args.push("--password", access.password);
  if (access.insecure) args.push("--insecure-skip-tls-verify");
  args.push("--repo", p.repoURL, p.chart);
  if (access.caFile !== undefined) args.push("--ca-file", access.caFile);
  if (files.cert !== undefined) args.push("--cert-file", files.cert);
  if (files.key !== undefined) args.push("--key-file", files.key);
  if (p.passCredentials) args.push("--pass-credentials");
  args.push("--untar");
  return args;
}

/** The proxy variables of helm's environment when the repository has a proxy (Argo CD's `proxy.UpsertEnv`). */
function proxyEnv(access: HelmAccess): Record<string, string> {
  if (access.proxy === "") return {};
  const env: Record<string, string> = {
    HTTPS_PROXY: access.proxy,
    HTTP_PROXY: access.proxy,
    https_proxy: access.proxy,
    http_proxy: access.proxy,
  };
  if (access.noProxy !== "") Object.assign(env, { NO_PROXY: access.noProxy, no_proxy: access.noProxy });
  return env;
}

/** Pulls the chart into `destination` (made if missing), unpacked. */
export async function pullChart(p: ChartPull, destination: string): Promise<void> {
  const home = await mkdtemp(join(tmpdir(), "appset-helm-pull-"));
  try {
    const files: { cert?: string; key?: string } = {};
    if (p.access.certData !== undefined) await writeFile((files.cert = join(home, "client.crt")), p.access.certData, { mode: 0o600 });
    if (p.access.keyData !== undefined) await writeFile((files.key = join(home, "client.key")), p.access.keyData, { mode: 0o600 });
    await mkdir(destination, { recursive: true });
    const env = {
      ...toolBaseEnv(p.env),
      ...proxyEnv(p.access),
      XDG_CACHE_HOME: join(home, "cache"),
      XDG_CONFIG_HOME: join(home, "config"),
      XDG_DATA_HOME: join(home, "data"),
      HELM_CONFIG_HOME: join(home, "config"),
    };
    await runTool({
      program: p.helm,
      args: pullArgs(p, destination, files),
      cwd: home,
      env,
      timeoutMs: p.timeoutMs,
      redact: redactHelm,
      ...(p.signal ? { signal: p.signal } : {}),
    }).catch((err: unknown) => {
      throw new AppSetError(MANIFEST_ERROR, `error fetching chart: failed to fetch chart: failed running helm: ${(err as Error).message}`);
    });
    await checkUnpacked(p, destination);
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}
