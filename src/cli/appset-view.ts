/**
 * `appset list` and `appset get` as rows and text: the ApplicationSets of a namespace with how many
 * Applications each owns, how many of them are synced and healthy, its health and its true
 * conditions (the columns of `argocd appset list`, plus the counts); and one ApplicationSet with its
 * conditions and generated Applications (sync status, health, and the RollingSync step and status
 * when the controller wrote them). Pure.
 */
import type { Application, ApplicationSet, ApplicationSetApplicationStatus, ApplicationSource } from "../api/index.js";
import { ConditionStatus, StrategyType } from "../api/appset-status.js";
import { Kind } from "../api/constants.js";

/** The key (`namespace/name`) of the ApplicationSet that controls `app`, as the controller's ownership reads it. */
export function ownerOf(app: Application): string | undefined {
  const ref = (app.metadata.ownerReferences ?? []).find(
    (r) => r.controller === true && r.kind === Kind.ApplicationSet && r.apiVersion.startsWith("argoproj.io/"),
  );
  return ref === undefined ? undefined : `${app.metadata.namespace ?? ""}/${ref.name}`;
}

const keyOf = (a: ApplicationSet): string => `${a.metadata.namespace ?? ""}/${a.metadata.name ?? ""}`;

/** The Applications of `all` that `appSet` controls, by name. */
export function ownedBy(appSet: ApplicationSet, all: readonly Application[]): Application[] {
  const key = keyOf(appSet);
  return all.filter((a) => ownerOf(a) === key).sort((a, b) => (a.metadata.name ?? "").localeCompare(b.metadata.name ?? ""));
}

/** The first source of the template (`source`, else `sources[0]`). */
function templateSource(appSet: ApplicationSet): ApplicationSource | undefined {
  const spec = appSet.spec.template.spec;
  return spec.source ?? spec.sources?.[0];
}

/** One ApplicationSet of `appset list`. */
export interface AppSetRow {
  readonly namespace: string;
  readonly name: string;
  readonly project: string;
  readonly applications: number;
  readonly synced: number;
  readonly healthy: number;
  /** `status.health.status`, "" before the controller wrote one. */
  readonly health: string;
  /** The types of the conditions whose status is True. */
  readonly conditions: readonly string[];
  /** `syncPolicy.applicationsSync`, "" when unset (the controller's --policy applies). */
  readonly syncPolicy: string;
  readonly strategy: string;
  readonly repo: string;
  readonly path: string;
  readonly target: string;
}

const count = (apps: readonly Application[], ok: (a: Application) => boolean): number => apps.filter(ok).length;
const isSynced = (a: Application): boolean => a.status?.sync?.status === "Synced";
const isHealthy = (a: Application): boolean => a.status?.health?.status === "Healthy";

/** The template's first source as the REPO, PATH (or chart) and TARGET columns. */
function sourceColumns(appSet: ApplicationSet): Pick<AppSetRow, "repo" | "path" | "target"> {
  const source = templateSource(appSet);
  if (source === undefined) return { repo: "", path: "", target: "" };
  return { repo: source.repoURL, path: source.path ?? source.chart ?? "", target: source.targetRevision ?? "" };
}

/** The row of one ApplicationSet whose Applications are `owned`. */
function appSetRow(a: ApplicationSet, owned: readonly Application[]): AppSetRow {
  const status = a.status ?? {};
  return {
    namespace: a.metadata.namespace ?? "",
    name: a.metadata.name ?? "",
    project: a.spec.template.spec.project,
    applications: owned.length,
    synced: count(owned, isSynced),
    healthy: count(owned, isHealthy),
    health: status.health?.status ?? "",
    conditions: (status.conditions ?? []).filter((c) => c.status === ConditionStatus.True).map((c) => c.type),
    syncPolicy: a.spec.syncPolicy?.applicationsSync ?? "",
    strategy: a.spec.strategy?.type === StrategyType.RollingSync ? StrategyType.RollingSync : StrategyType.AllAtOnce,
    ...sourceColumns(a),
  };
}

/** The rows of `appSets` (sorted by namespace and name), their Applications found in `apps`. */
export function appSetRows(appSets: readonly ApplicationSet[], apps: readonly Application[]): AppSetRow[] {
  const byOwner = new Map<string, Application[]>();
  for (const app of apps) {
    const owner = ownerOf(app);
    if (owner !== undefined) byOwner.set(owner, [...(byOwner.get(owner) ?? []), app]);
  }
  return [...appSets].sort((a, b) => keyOf(a).localeCompare(keyOf(b))).map((a) => appSetRow(a, byOwner.get(keyOf(a)) ?? []));
}

/** An aligned table with two spaces between columns; "-" marks an empty cell. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const all = [header, ...rows.map((r) => r.map((v) => v || "-"))];
  const widths = header.map((_, i) => Math.max(...all.map((row) => (row[i] ?? "").length)));
  return all.map((row) => row.map((v, i) => (i === row.length - 1 ? v : v.padEnd(widths[i]!))).join("  "));
}

/** How `appset list` prints the rows. */
export interface ListViewOptions {
  /** Add the sync policy, strategy and template source. */
  readonly wide: boolean;
  /** Add a NAMESPACE column first (`-A`). */
  readonly allNamespaces: boolean;
}

/** The rows as `appset list`'s table. */
export function renderAppSetList(rows: readonly AppSetRow[], o: ListViewOptions): string[] {
  const header = [
    ...(o.allNamespaces ? ["NAMESPACE"] : []),
    "NAME",
    "PROJECT",
    "APPS",
    "SYNCED",
    "HEALTHY",
    "HEALTH",
    "CONDITIONS",
    ...(o.wide ? ["SYNCPOLICY", "STRATEGY", "REPO", "PATH", "TARGET"] : []),
  ];
  const cells = rows.map((r) => [
    ...(o.allNamespaces ? [r.namespace] : []),
    r.name,
    r.project,
    String(r.applications),
    String(r.synced),
    String(r.healthy),
    r.health,
    r.conditions.join(","),
    ...(o.wide ? [r.syncPolicy, r.strategy, r.repo, r.path, r.target] : []),
  ]);
  return table(header, cells);
}

/** One generated Application of `appset get`. */
export interface AppRow {
  readonly name: string;
  /** False when the Application is not (or no longer) there: only RollingSync's status names it. */
  readonly present: boolean;
  readonly sync: string;
  readonly health: string;
  /** The RollingSync step (1-based, as the status writes it), "" without one. */
  readonly step: string;
  /** The RollingSync status (Waiting, Pending, Progressing, Healthy), "" without one. */
  readonly rollout: string;
  readonly message: string;
  readonly revision: string;
}

/** The row of the Application `name` (absent: only RollingSync's status names it). */
function appRow(name: string, app: Application | undefined, r: ApplicationSetApplicationStatus | undefined): AppRow {
  const sync = app?.status?.sync ?? { status: "" };
  const rolling = r ?? { step: "", status: "", message: "" };
  return {
    name,
    present: app !== undefined,
    sync: sync.status,
    health: app?.status?.health?.status ?? "",
    step: rolling.step,
    rollout: rolling.status,
    message: rolling.message,
    revision: sync.revision ?? "",
  };
}

/** The generated Applications of `appSet`: those it controls, and those only its RollingSync status names. */
export function appRows(appSet: ApplicationSet, owned: readonly Application[]): AppRow[] {
  const rolling = new Map((appSet.status?.applicationStatus ?? []).map((s) => [s.application, s]));
  const byName = new Map(owned.map((a) => [a.metadata.name ?? "", a]));
  const names = [...new Set([...byName.keys(), ...rolling.keys()])].sort();
  return names.map((name) => appRow(name, byName.get(name), rolling.get(name)));
}

/** How `appset get` prints. */
export interface GetViewOptions {
  /** Add the revision and the RollingSync message of each Application. */
  readonly wide: boolean;
}

const field = (label: string, value: string): string => `${`${label}:`.padEnd(14)}${value || "-"}`;

/** The summary lines of `appset get`. */
function summary(appSet: ApplicationSet): string[] {
  const r = appSetRow(appSet, []);
  const health = appSet.status?.health ?? {};
  const steps = appSet.spec.strategy?.rollingSync?.steps?.length ?? 0;
  return [
    field("Name", `${r.namespace}/${r.name}`),
    field("Project", r.project),
    field("Sync policy", r.syncPolicy),
    field("Strategy", r.strategy === StrategyType.RollingSync ? `${r.strategy} (${String(steps)} steps)` : r.strategy),
    field("Source", [r.repo, r.path, r.target].filter((s) => s !== "").join(" ")),
    field("Health", health.message ? `${health.status ?? ""}: ${health.message}` : (health.status ?? "")),
  ];
}

/** The conditions table, after a blank line; nothing without conditions. */
function conditionLines(appSet: ApplicationSet): string[] {
  const conditions = appSet.status?.conditions ?? [];
  if (conditions.length === 0) return [];
  const rows = conditions.map((c) => [c.type, c.status, c.reason, c.message, c.lastTransitionTime ?? ""]);
  return ["", ...table(["CONDITION", "STATUS", "REASON", "MESSAGE", "LAST TRANSITION"], rows)];
}

/** The Applications table: STEP and ROLLOUT when RollingSync wrote them, REVISION and MESSAGE when wide. */
function appLines(apps: readonly AppRow[], o: GetViewOptions): string[] {
  if (apps.length === 0) return ["No Applications."];
  const rolling = apps.some((a) => a.step !== "" || a.rollout !== "");
  const header = ["APPLICATION", "SYNC", "HEALTH", ...(rolling ? ["STEP", "ROLLOUT"] : []), ...(o.wide ? ["REVISION", "MESSAGE"] : [])];
  const cells = apps.map((a) => [
    a.name,
    a.present ? a.sync : "(missing)",
    a.health,
    ...(rolling ? [a.step, a.rollout] : []),
    ...(o.wide ? [a.revision, a.message] : []),
  ]);
  return table(header, cells);
}

/** `appset get`: the ApplicationSet's summary, its conditions and its Applications. */
export function renderAppSetGet(appSet: ApplicationSet, apps: readonly AppRow[], o: GetViewOptions): string[] {
  return [...summary(appSet), ...conditionLines(appSet), "", ...appLines(apps, o)];
}
