/**
 * What the state machine reads of a live Application, reduced to plain data: its sync and health
 * codes, revisions, last operation, error conditions, and whether its application controller has
 * compared the spec it now carries ("reconciled", see docs/progressive-syncs.md). Also the spec
 * helpers RollingSync needs: autosync disabling (docs/progressive-syncs.md#the-sync-operation) and
 * the default spec equivalence used to detect non-Git changes
 * (docs/progressive-syncs.md#per-application-status).
 */
import { sourceEquivalent, sourcesEquivalent, specsEquivalent } from "../api/equivalence.js";
import { AppConditionType, Annotation, type Application } from "../api/index.js";

/** Decides whether a desired spec (autosync already disabled) and a live Application's spec are the same. */
export type SpecsEquivalent = (desiredSpec: unknown, live: Application) => boolean;

/** The last operation of an Application. */
export interface ObservedOperation {
  readonly phase: string;
  /** Epoch milliseconds. */
  readonly startedAt: number;
}

/** A live Application as the state machine sees it. */
export interface ObservedApp {
  readonly name: string;
  readonly syncStatus: string | undefined;
  readonly healthStatus: string | undefined;
  /** `status.sync.revisions`, or `[status.sync.revision]`, or `[]`. */
  readonly revisions: readonly string[];
  /** `status.reconciledAt` in epoch milliseconds. */
  readonly reconciledAt: number | undefined;
  readonly operation: ObservedOperation | undefined;
  /** The Application has an `InvalidSpecError` or `UnknownError` condition. */
  readonly hasErrorCondition: boolean;
  /** Its application controller compared the spec it carries now: `reconciledAt` set and `comparedTo` matching. */
  readonly reconciled: boolean;
  /** The desired spec differs from the live one: the live status describes a spec about to be replaced. */
  readonly specChanged: boolean;
  /** The refresh annotation is present (a refresh was requested and not yet done). */
  readonly refreshRequested: boolean;
  /** `metadata.deletionTimestamp` is set. */
  readonly terminating: boolean;
}

/** Parses a Kubernetes timestamp to epoch milliseconds; undefined when absent or malformed. */
export function parseTime(s: string | null | undefined): number | undefined {
  if (s === null || s === undefined || s === "") return undefined;
  const ms = Date.parse(s);
  return Number.isNaN(ms) ? undefined : ms;
}

/** An Application's current revisions: `sync.revisions`, or `[sync.revision]`, or `[]`. */
export function appRevisions(app: Application): string[] {
  const sync = app.status?.sync;
  if (sync?.revisions !== undefined && sync.revisions.length > 0) return [...sync.revisions];
  return sync?.revision !== undefined && sync.revision !== "" ? [sync.revision] : [];
}

/**
 * The default {@link SpecsEquivalent}: Argo CD's normalisation, then Go's typed equality
 * (src/api/equivalence.ts), the same rule as the write path. The controller may inject one that
 * also applies `ignoreApplicationDifferences`.
 */
export const defaultSpecsEquivalent: SpecsEquivalent = (desiredSpec, live) => specsEquivalent(desiredSpec, live.spec);

/** True when `status.sync.comparedTo` describes the Application's current sources and destination. */
export function comparedToMatches(app: Application): boolean {
  const compared = app.status?.sync?.comparedTo;
  if (compared === undefined) return false;
  const multi = app.spec.sources !== undefined && app.spec.sources.length > 0;
  const sourcesMatch = multi ? sourcesEquivalent(app.spec.sources, compared.sources) : sourceEquivalent(app.spec.source, compared.source);
  const dest = app.spec.destination;
  const cdest = compared.destination ?? {};
  const destMatches = (["server", "name", "namespace"] as const).every(
    (k) => dest[k] === undefined || dest[k] === "" || dest[k] === cdest[k],
  );
  return sourcesMatch && destMatches;
}

function lastOperation(app: Application): ObservedOperation | undefined {
  const op = app.status?.operationState;
  const startedAt = parseTime(op?.startedAt);
  return op !== undefined && startedAt !== undefined ? { phase: op.phase, startedAt } : undefined;
}

const ERROR_CONDITIONS: readonly string[] = [AppConditionType.InvalidSpecError, AppConditionType.UnknownError];

function hasErrorCondition(app: Application): boolean {
  return (app.status?.conditions ?? []).some((c) => ERROR_CONDITIONS.includes(c.type));
}

/** Reduces a live Application to what the state machine reads. */
export function observeApp(app: Application, desiredSpec: unknown, equivalent: SpecsEquivalent): ObservedApp {
  const status = app.status;
  const reconciledAt = parseTime(status?.reconciledAt);
  return {
    name: app.metadata.name ?? "",
    syncStatus: status?.sync?.status,
    healthStatus: status?.health?.status,
    revisions: appRevisions(app),
    reconciledAt,
    operation: lastOperation(app),
    hasErrorCondition: hasErrorCondition(app),
    reconciled: reconciledAt !== undefined && comparedToMatches(app),
    specChanged: desiredSpec !== undefined && !equivalent(desiredSpec, app),
    refreshRequested: (app.metadata.annotations?.[Annotation.Refresh] ?? "") !== "",
    terminating: app.metadata.deletionTimestamp != null,
  };
}

/** A spec with `syncPolicy.automated.enabled` forced to false (the block, prune and selfHeal kept). */
export function disableAutosync(spec: unknown): { spec: unknown; autosyncWasEnabled: boolean; prune: boolean } {
  if (spec === null || typeof spec !== "object") return { spec, autosyncWasEnabled: false, prune: false };
  const s = spec as Record<string, unknown>;
  const policy = s["syncPolicy"];
  if (policy === null || typeof policy !== "object") return { spec, autosyncWasEnabled: false, prune: false };
  const automated = (policy as Record<string, unknown>)["automated"];
  if (automated === null || typeof automated !== "object") return { spec, autosyncWasEnabled: false, prune: false };
  const a = automated as Record<string, unknown>;
  const wasEnabled = a["enabled"] !== false;
  return {
    spec: { ...s, syncPolicy: { ...policy, automated: { ...a, enabled: false } } },
    autosyncWasEnabled: wasEnabled,
    prune: wasEnabled && a["prune"] === true,
  };
}
