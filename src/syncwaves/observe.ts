/**
 * What one reconcile reads about an Application: its destination cluster, its manifests at a
 * revision (sync targets prepared with namespace and tracking; PreDelete/PostDelete hooks kept
 * apart), the scope of each kind, the live objects it owns (read fresh), and the comparison.
 *
 * I/O boundary: the manifest source, discovery and GETs on the destination cluster.
 */
import { Annotation, RefreshType, type Application, type ApplicationSource } from "../api/index.js";
import { AppSetError, errorMessage } from "../errors.js";
import { ignoreNotFound, resources, type KubeObject, type ResourceDescriptor } from "../kube/index.js";
import { isSyncTarget, isTrackedBy, prepareTarget } from "./build.js";
import { dropRepeated } from "./repeated.js";
import { compare, type Comparison } from "./compare.js";
import { isExcluded, systemIgnoreRules, type ResourceCustomizations } from "./customizations/index.js";
import type { ClusterAccess } from "./destinations.js";
import { isGarbageHook, isPostDeleteHook, isPreDeleteHook, isSkip } from "./hooks.js";
import { candidateObject, candidateOf, candidatesFrom, readLive } from "./live.js";
import { OptionKey, optionIs } from "./options.js";
import { isManifestError, MANIFEST_ERROR, type ManifestSource, type Manifests, type ReadOptions } from "./manifests.js";
import { hasMultipleSources, isRefOnly, primarySource, RefSourcesError, refTargets, revisionsFor, sourcesOf } from "./sources.js";
import { groupOf, resourceKeyOf, keyString } from "./objects.js";

/** `status.sourceType` of what a source gave: Directory unless a tool rendered it. */
const sourceTypeOf = (m: Manifests): string => m.sourceType ?? "Directory";

/** What every source of an Application gave, in order. */
interface SourcesRead {
  /** `status.sync.revision`: the only source's revision, "" for a multi-source Application. */
  readonly revision: string;
  /** `status.sourceType`: the first source's type. */
  readonly sourceType: string;
  /** Each source's resolved revision. */
  readonly revisions: string[];
  /** Each source's type ("" for a ref-only source, as Argo CD leaves it). */
  readonly sourceTypes: string[];
  readonly objects: KubeObject[];
}

/** What one reconcile read. */
export interface Observed {
  readonly access: ClusterAccess;
  /** The resolved revision of a single-source Application; "" for a multi-source one, as Argo CD has it. */
  readonly revision: string;
  /** How the source was rendered (`status.sourceType`). */
  readonly sourceType: string;
  /** Whether the Application lists `spec.sources` (status then carries `revisions`, `sourceTypes`, `comparedTo.sources`). */
  readonly multiSource: boolean;
  /** Each source's resolved revision, in order (`status.sync.revisions` of a multi-source Application). */
  readonly revisions: string[];
  /** Each source's type (`status.sourceTypes`). */
  readonly sourceTypes: string[];
  readonly targets: KubeObject[];
  readonly live: KubeObject[];
  readonly comparison: Comparison;
  /** `RepeatedResourceWarning` messages: objects the manifests define more than once (the last wins). */
  readonly repeated: string[];
  /** `ExcludedResourceWarning` messages: targets of kinds `argocd-cm` excludes (left out, as Argo CD does). */
  readonly excluded: string[];
  /** The customizations of `argocd-cm` this reading used. */
  readonly customizations?: ResourceCustomizations | undefined;
  /** `apiVersion/kind` → namespaced. */
  readonly scope: Map<string, boolean>;
  /** `apiVersion/kind` → why the kind cannot be used. */
  readonly invalid: Map<string, string>;
  /** The deletion hooks of the manifests, prepared. */
  readonly preHooks: KubeObject[];
  readonly postHooks: KubeObject[];
  /** The resources of every kind the Application uses (for watches). */
  readonly descriptors: ResourceDescriptor[];
  /**
   * Whether the destination namespace exists, read only when the Application (or its operation)
   * asks for `CreateNamespace=true`; undefined otherwise.
   */
  readonly namespaceExists?: boolean;
}

/** The source that stands for the Application (`syncResult.source`): the first of its sources. */
export function sourceOf(app: Application): ApplicationSource | undefined {
  return primarySource(app);
}

const kindKey = (o: KubeObject): string => `${o.apiVersion ?? ""}/${o.kind ?? ""}`;

/** Resolves the scope of every kind; kinds a CRD of the same manifests defines are not invalid. */
async function resolveKinds(
  access: ClusterAccess,
  raw: readonly KubeObject[],
): Promise<Pick<Observed, "scope" | "invalid" | "descriptors">> {
  const scope = new Map<string, boolean>();
  const invalid = new Map<string, string>();
  const descriptors = new Map<string, ResourceDescriptor>();
  const crdKinds = new Set(
    raw
      .filter((o) => o.kind === "CustomResourceDefinition")
      .map((o) => {
        const spec = o.spec as { group?: string; names?: { kind?: string } } | undefined;
        return `${spec?.group ?? ""}/${spec?.names?.kind ?? ""}`;
      }),
  );
  await Promise.all(
    [...new Map(raw.map((o) => [kindKey(o), o])).values()].map(async (o) => {
      try {
        const d = await access.resolve(o);
        scope.set(kindKey(o), d.namespaced);
        descriptors.set(kindKey(o), d);
      } catch (err) {
        if (!crdKinds.has(`${groupOf(o)}/${o.kind ?? ""}`)) invalid.set(kindKey(o), errorMessage(err));
      }
    }),
  );
  return { scope, invalid, descriptors: [...descriptors.values()] };
}

/** What {@link observe} needs. */
export interface ObserveInput {
  readonly app: Application;
  readonly access: ClusterAccess;
  readonly source: ManifestSource;
  readonly trackingName: string;
  /** The revision to read (a running sync's pinned one), else the source's targetRevision. */
  readonly revision?: string;
  /** A multi-source Application's revisions to read, one per source (a sync's pinned or requested ones). */
  readonly revisions?: readonly string[];
  /** Aborted at the reconcile's deadline or when the engine stops. */
  readonly signal?: AbortSignal;
  /** The customizations of `argocd-cm`: exclusions, system-level ignore rules, custom health. */
  readonly customizations?: ResourceCustomizations | undefined;
  /**
   * Whether the Application's project permits a live object (kind, name, namespace): others are
   * neither read nor counted as the Application's, so they are never pruned. Absent: all are.
   */
  readonly livePermitted?: (obj: KubeObject) => boolean;
}

/** The server URL exclusions name a cluster by (the local cluster is Argo CD's in-cluster URL). */
const IN_CLUSTER = "https://kubernetes.default.svc";

/** Whether `argocd-cm` excludes the object's kind on the destination. */
function excludedBy(custom: ResourceCustomizations | undefined, access: ClusterAccess): (o: KubeObject) => boolean {
  if (custom === undefined) return () => false;
  const cluster = access.id === "local" ? IN_CLUSTER : access.id;
  return (o) => isExcluded(custom, groupOf(o), o.kind ?? "", cluster);
}

/** Argo CD's `ExcludedResourceWarning` message. */
const excludedMessage = (o: KubeObject): string =>
  `Resource ${groupOf(o)}/${o.kind ?? ""} ${o.metadata?.name ?? ""} is excluded in the settings`;

/** True when the Application asks for a hard refresh. */
function hardRefresh(app: Application): boolean {
  return app.metadata.annotations?.[Annotation.Refresh] === RefreshType.Hard;
}

/**
 * Whether the destination namespace exists, when a sync may have to create it (CreateNamespace=true
 * in the Application's or its operation's sync options). Argo CD creates the namespace before its
 * dry run; the sync then gets a PreSync Namespace task.
 */
async function namespaceExists(app: Application, access: ClusterAccess): Promise<boolean | undefined> {
  const ns = app.spec.destination.namespace ?? "";
  const asked = [app.spec.syncPolicy?.syncOptions ?? [], app.operation?.sync?.syncOptions ?? []].some((o) =>
    optionIs(o, OptionKey.CreateNamespace, "true"),
  );
  if (ns === "" || !asked) return undefined;
  return (await ignoreNotFound(access.client.get(resources.Namespaces, { name: ns }))) !== undefined;
}

/** How the source is read: the refresh asked for, the tracking name, the destination's facts. */
function readOptions(input: ObserveInput): ReadOptions {
  const { app, access, trackingName } = input;
  return {
    hard: hardRefresh(app),
    refresh: app.metadata.annotations?.[Annotation.Refresh] !== undefined,
    instanceName: trackingName,
    ...(access.facts ? { cluster: access.facts } : {}),
    ...(input.signal ? { signal: input.signal } : {}),
  };
}

/** A source's manifest error, with the source's place among the Application's sources (Argo CD's `source <i> of <n>`). */
export class SourceFailure extends AppSetError {
  constructor(
    message: string,
    readonly position: string,
  ) {
    super(MANIFEST_ERROR, message);
  }
}

/** The source's place in a manifest error: `1 of 1` unless a source of several failed. */
export const failedSourcePosition = (err: unknown): string => (err instanceof SourceFailure ? err.position : "1 of 1");

/**
 * The ComparisonError message of a failed read, in Argo CD's words: `Failed to load target state: `
 * then, for a manifest error, `failed to generate manifest for source <i> of <n>: ` and `detail`.
 */
export function loadTargetMessage(err: unknown, detail: string): string {
  if (err instanceof RefSourcesError) return `Failed to load target state: ${detail}`;
  if (!isManifestError(err)) return detail;
  return `Failed to load target state: failed to generate manifest for source ${failedSourcePosition(err)}: ${detail}`;
}

/** What one source gave: a ref-only source of a multi-source Application only its revision. */
async function readOne(
  input: ObserveInput,
  source: ApplicationSource,
  revision: string | undefined,
  options: ReadOptions,
): Promise<Manifests> {
  if (options.refSources !== undefined && isRefOnly(source)) {
    const resolved = input.source.revisionOf
      ? await input.source.revisionOf(source, revision, options)
      : (revision ?? source.targetRevision ?? "");
    return { revision: resolved, objects: [], sourceType: "" };
  }
  return input.source.read(input.app, source, revision, options);
}

/**
 * Every source read in order and its objects concatenated, as Argo CD generates them; a manifest
 * error names the source that failed.
 */
async function readSources(input: ObserveInput): Promise<SourcesRead> {
  const { app } = input;
  const sources = sourcesOf(app);
  if (sources.length === 0) throw new Error("spec.source is required");
  const multi = hasMultipleSources(app);
  const revisions = multi ? revisionsFor(sources, input.revisions) : [input.revision];
  const options = multi ? { ...readOptions(input), refSources: refTargets(sources, revisions) } : readOptions(input);
  const read: Manifests[] = [];
  for (const [i, source] of sources.entries()) {
    try {
      read.push(await readOne(input, source, revisions[i], options));
    } catch (err) {
      if (!isManifestError(err)) throw err;
      throw new SourceFailure(errorMessage(err), `${String(i + 1)} of ${String(sources.length)}`);
    }
  }
  return {
    revision: multi ? "" : (read[0]?.revision ?? ""),
    sourceType: read[0] !== undefined ? sourceTypeOf(read[0]) : "Directory",
    revisions: read.map((m) => m.revision),
    sourceTypes: read.map((m) => (m.sourceType === "" ? "" : sourceTypeOf(m))),
    objects: read.flatMap((m) => m.objects),
  };
}

/** Reads manifests and live objects and compares them. */
export async function observe(input: ObserveInput): Promise<Observed> {
  const { app, access, trackingName } = input;
  const manifests = await readSources(input);
  const excluded = excludedBy(input.customizations, access);
  const rawAll = manifests.objects.filter(isSyncTarget);
  const raw = rawAll.filter((o) => !excluded(o));
  const deletion = manifests.objects.filter((o) => !isSkip(o) && !isGarbageHook(o) && (isPreDeleteHook(o) || isPostDeleteHook(o)));
  const kinds = await resolveKinds(access, [...raw, ...deletion]);
  const destinationNamespace = app.spec.destination.namespace ?? "";
  const prepare = (o: KubeObject): KubeObject =>
    prepareTarget(o, { appName: trackingName, destinationNamespace, isNamespaced: (x) => kinds.scope.get(kindKey(x)) });
  const { objects: targets, warnings: repeated } = dropRepeated(raw.map(prepare));
  const candidates = [
    ...targets.map(candidateOf),
    ...candidatesFrom(app.status?.resources ?? []),
    ...candidatesFrom(app.status?.operationState?.syncResult?.resources ?? []),
  ];
  const targetKeys = new Set(targets.map((t) => keyString(resourceKeyOf(t))));
  const permitted = input.livePermitted ?? ((): boolean => true);
  const readable = candidates.filter((c) => permitted(candidateObject(c)));
  const found = await readLive({ client: access.client, resolve: access.resolve }, readable);
  const live = found.filter(
    (o) => !excluded(o) && permitted(o) && (isTrackedBy(o, trackingName) || targetKeys.has(keyString(resourceKeyOf(o)))),
  );
  const ignoreDifferences = [...(app.spec.ignoreDifferences ?? []), ...systemIgnoreRules(input.customizations)];
  const nsExists = await namespaceExists(app, access);
  return {
    access,
    revision: manifests.revision,
    sourceType: manifests.sourceType,
    multiSource: hasMultipleSources(app),
    revisions: manifests.revisions,
    sourceTypes: manifests.sourceTypes,
    targets,
    live,
    comparison: compare(targets, live, manifests.objects.filter(isSkip).map(prepare), {
      ignoreDifferences,
      customizations: input.customizations,
    }),
    repeated,
    excluded: rawAll.filter(excluded).map(excludedMessage),
    customizations: input.customizations,
    ...kinds,
    preHooks: deletion.filter(isPreDeleteHook).map(prepare),
    postHooks: deletion.filter(isPostDeleteHook).map(prepare),
    ...(nsExists !== undefined ? { namespaceExists: nsExists } : {}),
  };
}
