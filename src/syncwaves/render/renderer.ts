/**
 * Renders a Helm or Kustomize source with the real programs, as Argo CD's repo server does
 * (docs/sync-engine.md#sources): the commit is written out, the commands of
 * {@link helmTemplateCommand} or of kustomize-args run on it, and their output is parsed as
 * manifests. A chart whose dependencies are missing gets one `helm dependency build`, as in Argo
 * CD. Errors carry Argo CD's wording.
 *
 * I/O boundary: the workspace on disk and the programs.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join, posix } from "node:path";
import type { Application, ApplicationSource } from "../../api/index.js";
import { AppSetError } from "../../errors.js";
import type { GitReader, TreeEntry } from "../../git/index.js";
import type { ClusterFacts, KubeObject } from "../../kube/index.js";
import { MANIFEST_ERROR, parseFile } from "../manifests.js";
import { buildEnv, type EnvEntry } from "./envsubst.js";
import { helmTemplateCommand } from "./helm-args.js";
import { buildArgs, componentCommand, editCommands, withPatches, type KustomizeInput } from "./kustomize-args.js";
import { KUSTOMIZATION_NAMES, SourceType } from "./source-type.js";
import { runTool, TOOL_TIMEOUT_MS } from "./tool.js";
import { toolBaseEnv } from "./tool-env.js";
import { copyWorkspace, writeWorkspace, type Workspace } from "./workspace.js";
import { writeRefValueFiles, type RefRepo } from "./ref-values.js";

/** Options of {@link ToolRenderer}. */
export interface ToolRendererOptions {
  /** The programs (default `helm` and `kustomize` on PATH). */
  readonly helm?: string;
  readonly kustomize?: string;
  /** Each program run's limit (default 90 s). */
  readonly timeoutMs?: number;
  /** argocd-cm `kustomize.buildOptions`. */
  readonly kustomizeBuildOptions?: string;
  /** argocd-cm `helm.valuesFileSchemes` (default https, http). */
  readonly valueFileSchemes?: readonly string[];
  /** This process's environment; the programs inherit only its allowed variables ({@link toolBaseEnv}; default none). */
  readonly env?: Env;
}

type Env = Readonly<Record<string, string | undefined>>;

/** One render. */
export interface RenderRequest {
  readonly type: typeof SourceType.Helm | typeof SourceType.Kustomize;
  readonly app: Application;
  readonly source: ApplicationSource;
  readonly repoURL: string;
  readonly commit: string;
  readonly tree: readonly TreeEntry[];
  /** The source's path from the repository root ("" for the root). */
  readonly root: string;
  readonly instanceName: string;
  readonly facts: ClusterFacts;
  readonly signal?: AbortSignal | undefined;
  /** The repositories of the ref sources a Helm source's `$<ref>/...` paths name (multi-source). */
  readonly refs?: ReadonlyMap<string, RefRepo> | undefined;
}

/** A chart from a Helm repository to render. */
export interface ChartRenderRequest {
  readonly app: Application;
  readonly source: ApplicationSource;
  /** The unpacked chart (left as it is: the render works on a copy). */
  readonly chartDir: string;
  /** The chart's version: the source's revision. */
  readonly version: string;
  readonly instanceName: string;
  readonly facts: ClusterFacts;
  readonly signal?: AbortSignal | undefined;
  /** The repositories of the ref sources a Helm source's `$<ref>/...` paths name (multi-source). */
  readonly refs?: ReadonlyMap<string, RefRepo> | undefined;
}

/** What one `helm template` needs: the source, the chart's path in the work directory, the files around it. */
interface HelmRun {
  readonly app: Application;
  readonly source: ApplicationSource;
  readonly root: string;
  /** The work directory's files, relative to it. */
  readonly files: readonly string[];
  readonly instanceName: string;
  readonly facts: ClusterFacts;
  readonly signal?: AbortSignal | undefined;
  /** The repositories of the ref sources a Helm source's `$<ref>/...` paths name (multi-source). */
  readonly refs?: ReadonlyMap<string, RefRepo> | undefined;
}

const HELM_MISSING_DEPENDENCY = [
  "found in requirements.yaml, but missing in charts",
  "found in Chart.yaml, but missing in charts/ directory",
];

/** The build environment (`ARGOCD_APP_*`) of a source rendered at `revision`. */
function sourceEnv(req: { app: Application; source: ApplicationSource; instanceName: string }, revision: string): EnvEntry[] {
  return buildEnv({
    appName: req.instanceName,
    namespace: req.app.spec.destination.namespace ?? "",
    project: req.app.spec.project ?? "",
    revision,
    repoURL: req.source.repoURL,
    path: req.source.path ?? "",
    targetRevision: req.source.targetRevision ?? "",
  });
}

/** The manifests of a program's output, Lists expanded. */
export function parseRendered(out: string): KubeObject[] {
  return parseFile({ path: "rendered.yaml", content: out });
}

/** Renders sources with helm and kustomize. */
export class ToolRenderer {
  /** What the programs inherit of this process's environment. */
  private readonly inherited: Readonly<Record<string, string>>;

  constructor(
    private readonly git: GitReader,
    private readonly options: ToolRendererOptions = {},
  ) {
    this.inherited = toolBaseEnv(options.env ?? {});
  }

  async render(req: RenderRequest): Promise<KubeObject[]> {
    const ws = await writeWorkspace({
      git: this.git,
      repoURL: req.repoURL,
      commit: req.commit,
      tree: req.tree,
      signal: req.signal,
    });
    try {
      const env = sourceEnv(req, req.commit);
      const files = req.tree.filter((e) => e.type === "blob").map((e) => e.path);
      const out = req.type === SourceType.Helm ? await this.helm({ ...req, files }, ws, env) : await this.kustomize(req, ws, env);
      return parseRendered(out);
    } catch (err) {
      throw withCachedSourcePath(err, ws.dir);
    } finally {
      await ws.dispose();
    }
  }

  /**
   * Renders a chart pulled from a Helm repository (`chartDir`, unpacked) at `version`: the chart
   * is copied to a fresh directory and rendered like a chart of a repository whose root it is, so
   * value files are relative to the chart, as Argo CD renders a chart source.
   */
  async renderChart(req: ChartRenderRequest): Promise<KubeObject[]> {
    const ws = await copyWorkspace(req.chartDir);
    try {
      const env = sourceEnv(req, req.version);
      const run: HelmRun = { ...req, root: "", files: ws.files };
      return parseRendered(await this.helm(run, ws, env));
    } catch (err) {
      throw withCachedSourcePath(err, ws.dir);
    } finally {
      await ws.dispose();
    }
  }

  private run(program: string, args: readonly string[], at: { cwd: string; env: Env; signal?: AbortSignal | undefined }): Promise<string> {
    const { cwd, env, signal } = at;
    return runTool({ program, args, cwd, env, timeoutMs: this.options.timeoutMs ?? TOOL_TIMEOUT_MS, ...(signal ? { signal } : {}) });
  }

  private async helm(req: HelmRun, ws: Workspace, env: readonly EnvEntry[]): Promise<string> {
    const program = this.options.helm ?? "helm";
    const valuesPath = join(ws.scratch, "values.yaml");
    const refFiles = await writeRefValueFiles({
      git: this.git,
      refs: req.refs ?? new Map<string, RefRepo>(),
      helm: req.source.helm,
      env,
      schemes: this.options.valueFileSchemes,
      dir: ws.scratch,
      signal: req.signal,
    });
    const cmd = helmTemplateCommand({
      refFiles,
      helm: req.source.helm,
      appPath: req.root,
      instanceName: req.instanceName,
      namespace: req.app.spec.destination.namespace ?? "",
      kubeVersion: req.facts.kubeVersion,
      apiVersions: req.facts.apiVersions,
      env,
      files: req.files,
      workDir: ws.dir,
      valuesPath,
      ...(this.options.valueFileSchemes ? { valueFileSchemes: this.options.valueFileSchemes } : {}),
    });
    if (cmd.values !== undefined) await writeFile(valuesPath, cmd.values);
    const helmEnv = {
      ...this.inherited,
      XDG_CACHE_HOME: join(ws.scratch, "cache"),
      XDG_CONFIG_HOME: join(ws.scratch, "config"),
      XDG_DATA_HOME: join(ws.scratch, "data"),
      HELM_CONFIG_HOME: join(ws.scratch, "config"),
    };
    const chart = join(ws.dir, req.root);
    const template = (): Promise<string> => this.run(program, cmd.args, { cwd: chart, env: helmEnv, signal: req.signal });
    try {
      return await template();
    } catch (err) {
      const message = (err as Error).message;
      if (!HELM_MISSING_DEPENDENCY.some((m) => message.includes(m))) throw helmError(message);
    }
    try {
      await this.run(program, ["dependency", "build"], { cwd: chart, env: helmEnv, signal: req.signal });
    } catch (err) {
      throw new AppSetError(
        MANIFEST_ERROR,
        `error building helm chart dependencies: failed to build dependencies: failed running helm: ${(err as Error).message}`,
      );
    }
    try {
      return await template();
    } catch (err) {
      throw helmError((err as Error).message);
    }
  }

  private async kustomize(req: RenderRequest, ws: Workspace, env: readonly EnvEntry[]): Promise<string> {
    const program = this.options.kustomize ?? "kustomize";
    const dir = join(ws.dir, req.root);
    const files = new Set(req.tree.filter((e) => e.type === "blob").map((e) => e.path));
    const input: KustomizeInput = {
      kustomize: req.source.kustomize,
      dir,
      env,
      kubeVersion: req.facts.kubeVersion,
      apiVersions: req.facts.apiVersions,
      hasKustomization: (c) => KUSTOMIZATION_NAMES.some((n) => files.has(posix.normalize(posix.join(req.root, c, n)))),
      ...(this.options.kustomizeBuildOptions !== undefined ? { buildOptions: this.options.kustomizeBuildOptions } : {}),
    };
    const inherited = this.inherited;
    const withBuildEnv = { ...inherited, ...Object.fromEntries(env.map((e) => [e.name, e.value])) };
    for (const args of editCommands(input)) await this.run(program, args, { cwd: dir, env: inherited, signal: req.signal });
    if ((req.source.kustomize?.patches ?? []).length > 0) await this.writePatches(req, ws);
    const component = componentCommand(input);
    if (component !== undefined) await this.run(program, component, { cwd: dir, env: withBuildEnv, signal: req.signal });
    return this.run(program, buildArgs(input), { cwd: ws.dir, env: withBuildEnv, signal: req.signal });
  }

  private async writePatches(req: RenderRequest, ws: Workspace): Promise<void> {
    const name = KUSTOMIZATION_NAMES.find((n) => req.tree.some((e) => e.path === posix.join(req.root, n)));
    if (name === undefined) throw new AppSetError(MANIFEST_ERROR, "kustomization file not found in the path");
    const path = join(ws.dir, req.root, name);
    await writeFile(path, withPatches(await readFile(path, "utf8"), req.source.kustomize ?? {}));
  }
}

/** What Argo CD's repo-server shows instead of the temporary checkout's path in an error. */
export const CACHED_SOURCE = "<path to cached source>";

/** `err` with the checkout's path `dir` shown as {@link CACHED_SOURCE}, as Argo CD's repo-server shows it. */
export function withCachedSourcePath(err: unknown, dir: string): unknown {
  if (!(err instanceof Error) || !err.message.includes(dir)) return err;
  const message = err.message.split(dir).join(CACHED_SOURCE);
  return err instanceof AppSetError ? new AppSetError(err.reason, message) : new Error(message);
}

/** A failed `helm template`, with Argo CD's frame and the API version list left out. */
function helmError(message: string): AppSetError {
  const trimmed = message.includes("--api-versions") ? message.replace(/(--api-versions [^ ]+ )+/g, "<api versions removed> ") : message;
  return new AppSetError(MANIFEST_ERROR, `failed to execute helm template command: failed running helm: ${trimmed}`);
}
