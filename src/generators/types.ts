/**
 * The generator contract and the narrow ports generators receive. A generator never sees a
 * Kubernetes client: cluster Secrets, ConfigMaps, Secrets and duck-typed resources come through
 * the reader interfaces here (the controller implements them over informers, `appset generate`
 * over files or the API), Git through {@link GitReader}, HTTP through a `fetch`.
 */
import { MIB } from "../response-limit.js";
import type { AppProject, ApplicationSet, GeneratorTemplate, LabelSelector, Secret } from "../api/index.js";
import type { Clock } from "../clock/index.js";
import type { GitReader } from "../git/index.js";
import type { OciReader } from "../oci/index.js";
import type { KubeObject } from "../kube/index.js";
import type { Logger } from "../log/logger.js";

/**
 * One parameter set. In goTemplate mode, any JSON (nested objects and arrays); in fasttemplate
 * mode, flat keys (`path.basename`, `values.x`) whose substitutable values are strings.
 */
export type ParamSet = Record<string, unknown>;

/** Lists the Argo CD cluster Secrets (label `argocd.argoproj.io/secret-type: cluster`). */
export interface ClusterSecretLister {
  /** Every cluster Secret of the Argo CD namespace. A failure rejects; it never yields []. */
  listClusterSecrets(signal?: AbortSignal): Promise<readonly Secret[]>;
}

/** Reads ConfigMaps of the Argo CD namespace. */
export interface ConfigMapReader {
  /** The ConfigMap's `data`; rejects when it does not exist or cannot be read. */
  getConfigMapData(name: string, signal?: AbortSignal): Promise<Readonly<Record<string, string>>>;
}

/** Reads Secrets of the Argo CD namespace. */
export interface SecretReader {
  /** The namespace the Secrets are read from (named in error messages). */
  readonly namespace?: string;
  /** The Secret, or undefined when it does not exist; rejects on other failures. */
  getSecret(name: string, signal?: AbortSignal): Promise<Secret | undefined>;
}

/** Reads AppProjects of the Argo CD (controller) namespace. */
export interface AppProjectReader {
  /** The AppProject, or undefined when it does not exist; rejects on other failures. */
  getAppProject(name: string, signal?: AbortSignal): Promise<AppProject | undefined>;
}

/** A duck-typed resource type, as the Cluster Decision Resource ConfigMap names it. */
export interface DuckResource {
  readonly group: string;
  readonly version: string;
  /** The plural resource name (Argo CD's `kind` key holds it). */
  readonly plural: string;
}

/** Lists duck-typed resources of the Argo CD namespace through the dynamic API. */
export interface DuckResourceLister {
  list(
    resource: DuckResource,
    select: { name?: string; labelSelector?: LabelSelector },
    signal?: AbortSignal,
  ): Promise<readonly KubeObject[]>;
}

/** The subset of `fetch` the plugin generator uses. */
export type HttpFetch = (
  url: string,
  init: { method: string; headers: Record<string, string>; body: string; signal: AbortSignal },
) => Promise<{ status: number; body: AsyncIterable<Uint8Array> | null }>;

/** Renders one string with parameters (Argo's `Render.Replace`); throws on template errors. */
export interface StringRenderer {
  replace(text: string, params: Readonly<Record<string, unknown>>, goTemplate: boolean, options?: readonly string[]): string;
}

/** Every port a generator may use. Each is optional: a generator whose port is absent fails. */
export interface GeneratorPorts {
  readonly clusters?: ClusterSecretLister;
  readonly git?: GitReader;
  readonly oci?: OciReader;
  readonly configMaps?: ConfigMapReader;
  readonly secrets?: SecretReader;
  readonly resources?: DuckResourceLister;
  readonly fetch?: HttpFetch;
  /**
   * AppProjects of the controller namespace. The Git generator checks a literal spec-level
   * project through it; when absent (an offline preview without objects) that check is skipped.
   */
  readonly projects?: AppProjectReader;
}

/** Controller-wide generator settings (flags and env, resolved once at the edge). */
export interface GeneratorSettings {
  /** Default requeue of Git and Cluster Decision Resource generators (ms; Argo: 3 min). */
  readonly defaultRequeueAfterMs: number;
  /** Deepest matrix/merge nesting accepted: 1 = no combination inside a combination. Argo CD: 2. */
  readonly maxNestingDepth: number;
  /** `--enable-new-git-file-globbing`: doublestar instead of git pathspec for `files`. */
  readonly newGitFileGlobbing: boolean;
  /** Most parameter sets one ApplicationSet may generate, a matrix's product included (ours; Argo CD has no limit). */
  readonly maxParameterSets: number;
  /** Largest answer body of a plugin generator's service, in bytes (ours; Argo CD has no limit). */
  readonly pluginMaxResponseBytes: number;
  /** Largest file a Git files generator reads, in bytes (ours). */
  readonly gitFileMaxBytes: number;
  /** Most bytes of matched files one Git files generator reads in one pass (ours). */
  readonly gitFilesMaxBytes: number;
}

/** Default settings: Argo CD's, except the nesting cap. */
export const DEFAULT_GENERATOR_SETTINGS: GeneratorSettings = {
  defaultRequeueAfterMs: 3 * 60_000,
  maxNestingDepth: 5,
  newGitFileGlobbing: false,
  maxParameterSets: 10_000,
  pluginMaxResponseBytes: 10 * MIB,
  gitFileMaxBytes: 16 * MIB,
  gitFilesMaxBytes: 64 * MIB,
};

/** What every generator call receives. */
export interface GeneratorContext {
  readonly ports: GeneratorPorts;
  readonly settings: GeneratorSettings;
  readonly renderer: StringRenderer;
  readonly clock: Clock;
  readonly logger?: Logger;
  readonly signal?: AbortSignal;
  /**
   * The ApplicationSet asked for a refresh (Argo CD's refresh annotation, set by the webhook on a
   * push): Git revisions are resolved afresh, past the revision cache.
   */
  readonly freshRevisions?: boolean;
  /** Combination nesting level of the generator being run (0 = a top-level entry). */
  readonly depth: number;
}

/** The AppSet-wide template settings generators honour. */
export interface TemplateMode {
  readonly goTemplate: boolean;
  readonly options: readonly string[];
}

/** The template mode of an ApplicationSet. */
export function templateMode(appSet: ApplicationSet): TemplateMode {
  return { goTemplate: appSet.spec.goTemplate === true, options: appSet.spec.goTemplateOptions ?? [] };
}

/**
 * One generator kind. `S` is its own spec (the value under its key in a generator entry).
 * `generate` resolves to the parameter sets, or rejects with a GeneratorError: an empty array
 * always means "nothing exists", never "could not tell".
 */
export interface Generator<S> {
  generate(spec: S, appSet: ApplicationSet, ctx: GeneratorContext): Promise<ParamSet[]>;
  /** How long until the generator should run again (ms); 0 means no periodic requeue. */
  requeueAfterMs(spec: S, settings: GeneratorSettings): number;
  /** The generator's own override template, if any (docs/templates.md#rendering-around-the-template). */
  template(spec: S): GeneratorTemplate | undefined;
}
