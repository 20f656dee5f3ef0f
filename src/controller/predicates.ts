/**
 * Which cache events matter (docs/controller.md#which-events-start-a-pass), as pure functions: the
 * ApplicationSet and owned Application update predicates, the owner lookup, the allowed-namespace
 * patterns, and which ApplicationSets a cluster Secret can affect (only those with a Cluster
 * generator whose selector matches the Secret's labels before or after the change; Argo CD requeues
 * them all).
 */
import {
  Annotation,
  ConditionStatus,
  ConditionType,
  Kind,
  Reason,
  isRecord,
  type Application,
  type ApplicationSet,
  type LabelSelector,
  type ObjectMeta,
} from "../api/index.js";
import { compileSelector } from "../generators/index.js";
import { OBJECT_META_KINDS } from "../api/equivalence.js";
import { goCanonical } from "../api/go-json.js";
import { jsonEqual, semanticEqual } from "../json/index.js";

/** The key of the ApplicationSet that controls `app`, or undefined. */
export function ownerKey(app: Application): string | undefined {
  const ref = (app.metadata.ownerReferences ?? []).find(
    (r) => r.controller === true && r.kind === Kind.ApplicationSet && r.apiVersion.startsWith("argoproj.io/"),
  );
  return ref === undefined ? undefined : `${app.metadata.namespace ?? ""}/${ref.name}`;
}

function refreshRemoved(o: ObjectMeta, n: ObjectMeta): boolean {
  return o.annotations?.[Annotation.ApplicationSetRefresh] !== undefined && n.annotations?.[Annotation.ApplicationSetRefresh] === undefined;
}

function metaChanged(o: ObjectMeta, n: ObjectMeta, fields: ReadonlyArray<"labels" | "annotations" | "finalizers">): boolean {
  return fields.some((f) => !jsonEqual(goCanonical(o[f], OBJECT_META_KINDS[f], {}), goCanonical(n[f], OBJECT_META_KINDS[f], {})));
}

/**
 * Argo CD's ApplicationSet update predicate: spec, labels, finalizers, deletionTimestamp,
 * annotations (unless the refresh annotation was just removed), or (Progressive Syncs) the
 * applicationStatus changed. Conditions and resources alone never count. Nil and empty are equal.
 */
export function appSetChanged(oldSet: ApplicationSet, newSet: ApplicationSet, progressiveSyncs: boolean): boolean {
  const o = oldSet.metadata;
  const n = newSet.metadata;
  const structural =
    !jsonEqual(oldSet.spec, newSet.spec) ||
    metaChanged(o, n, ["labels", "finalizers"]) ||
    (o.deletionTimestamp ?? undefined) !== (n.deletionTimestamp ?? undefined) ||
    (progressiveSyncs && !semanticEqual(oldSet.status?.applicationStatus, newSet.status?.applicationStatus));
  if (structural) return true;
  return metaChanged(o, n, ["annotations"]) && !refreshRemoved(o, n);
}

/** The Progressive Syncs view of an Application's status: what its predicate compares. */
interface ProgressView {
  health?: string;
  sync?: string;
  op?: { phase: string; startedAt: string };
}

function progressView(app: Application): ProgressView {
  const st = app.status;
  const op = st?.operationState;
  return {
    health: st?.health?.status,
    sync: st?.sync?.status,
    op: op === undefined ? undefined : { phase: op.phase, startedAt: op.startedAt },
  };
}

/**
 * What the rollout reads changed: health, sync status, the operation's phase or start, and (for the
 * reconciled-before-progressing gate) the spec its application controller compared, or its first
 * reconcile. Later refreshes that change nothing else do not count, so a fleet's periodic
 * refreshes cost no passes.
 */
function progressChanged(oldApp: Application, newApp: Application): boolean {
  const o = progressView(oldApp);
  const n = progressView(newApp);
  if (o.health !== n.health || o.sync !== n.sync) return true;
  return reconciledGateChanged(oldApp, newApp) || operationChanged(o.op, n.op);
}

/** What the reconciled-before-progressing gate reads changed: a first reconcile, or the spec compared. */
function reconciledGateChanged(oldApp: Application, newApp: Application): boolean {
  if (oldApp.status?.reconciledAt === undefined && newApp.status?.reconciledAt !== undefined) return true;
  return !jsonEqual(oldApp.status?.sync?.comparedTo ?? null, newApp.status?.sync?.comparedTo ?? null);
}

/** Both operations are there and their phase or start differs. */
function operationChanged(o: ProgressView["op"], n: ProgressView["op"]): boolean {
  return o !== undefined && n !== undefined && (o.phase !== n.phase || o.startedAt !== n.startedAt);
}

/**
 * Argo CD's owned-Application update predicate: spec, annotations, labels or finalizers changed; with
 * Progressive Syncs also health, sync status and the operation's phase or start time, and what the
 * reconciled gate reads ({@link progressChanged}).
 */
export function appChanged(oldApp: Application, newApp: Application, progressiveSyncs: boolean): boolean {
  if (!jsonEqual(oldApp.spec, newApp.spec) || metaChanged(oldApp.metadata, newApp.metadata, ["annotations", "labels", "finalizers"]))
    return true;
  return progressiveSyncs && progressChanged(oldApp, newApp);
}

/** The selectors of every Cluster generator in an entry list, nested matrix/merge included. */
export function clusterSelectors(generators: readonly unknown[]): Array<LabelSelector | undefined> {
  const out: Array<LabelSelector | undefined> = [];
  for (const g of generators) {
    if (!isRecord(g)) continue;
    if (isRecord(g["clusters"])) out.push((g["clusters"]["selector"] ?? undefined) as LabelSelector | undefined);
    for (const k of ["matrix", "merge"]) {
      const combo = g[k];
      if (isRecord(combo) && Array.isArray(combo["generators"])) out.push(...clusterSelectors(combo["generators"]));
    }
  }
  return out;
}

function hasValidationError(appSet: ApplicationSet): boolean {
  return (appSet.status?.conditions ?? []).some(
    (c) => c.type === ConditionType.ErrorOccurred && c.status === ConditionStatus.True && c.reason === Reason.ApplicationValidationError,
  );
}

function selects(selector: LabelSelector | undefined, labels: readonly Readonly<Record<string, string>>[]): boolean {
  try {
    const match = compileSelector(selector, { strictValues: true, operatorNoun: "label" });
    return labels.some((l) => match(l));
  } catch {
    return true;
  }
}

/**
 * The ApplicationSets a cluster Secret change can affect: a Cluster generator selecting the Secret's
 * old or new labels, or a standing validation error (a destination may now resolve).
 */
export function affectedByCluster(
  appSets: readonly ApplicationSet[],
  labels: readonly Readonly<Record<string, string>>[],
): ApplicationSet[] {
  return appSets.filter((a) => hasValidationError(a) || clusterSelectors(a.spec.generators).some((s) => selects(s, labels)));
}

/**
 * Whether an ApplicationSet's Applications may name the AppProject `project`: its template names
 * it, or names a project through a template expression, a `templatePatch` or a generator's own
 * template. Read from the spec, so it does not depend on the cached status being up to date.
 */
function mayUseProject(appSet: ApplicationSet, project: string): boolean {
  if (appSet.spec.templatePatch !== undefined) return true;
  if (JSON.stringify(appSet.spec.generators).includes('"project"')) return true;
  const named = appSet.spec.template.spec?.project ?? "";
  return named === project || named.includes("{{");
}

/**
 * The ApplicationSets an AppProject change can affect: those with a standing validation error, and
 * those whose Applications may use the project (so a project created while an ApplicationSet's
 * failing status is still on its way to the cache is not missed).
 */
export function affectedByProject(appSets: readonly ApplicationSet[], project: string): ApplicationSet[] {
  return appSets.filter((a) => hasValidationError(a) || mayUseProject(a, project));
}
