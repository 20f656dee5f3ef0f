/**
 * What a user can observe of one side after a step, normalised so the two sides compare: the
 * Application's status (operation, per-resource results, sync status, health, history, the
 * revisions and source types of a multi-source Application,
 * conditions), the objects that exist in the destination, and what was written there since the
 * previous step, from a watch. The side's namespace becomes `$NS`, the path of its Git repository
 * (in a repository URL a project refuses) `$REPO`, commit SHAs `c0`, `c1`… (by
 * the case's commit order), timestamps and clock times placeholders, and the random suffix of a
 * generated hook name `*`. Pure: the runner reads and watches, these functions shape.
 */
import { text, type Json } from "../../differential/support/observe.js";

type Obj = Record<string, Json>;

/** The normalised state of one side after a step. */
export interface Observation {
  readonly app: Json;
  /** `Kind/name` of every watched object in the destination, sorted. */
  readonly live: string[];
  /** What the watch saw since the previous step (see {@link timeline}). */
  readonly writes: string[];
}

/** What the normaliser needs of a side. */
export interface Context {
  readonly ns: string;
  /** The path of the side's Git repository. */
  readonly repo: string;
  /** The side's commit SHAs, in the case's commit order. */
  readonly commits: readonly string[];
  /** The `generateName` prefixes of the case's manifests. */
  readonly generated: readonly string[];
  /** The slot of an object by `Kind/name`: its hook types (or `sync`) and wave in the case's manifests. */
  readonly slot: (kindName: string) => string;
}

const TIME = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)/g;
/** Clock times in messages ("Retrying attempt #1 at 7:01AM", "at 07:01:02"). */
const CLOCK = /\b\d{1,2}:\d\d(:\d\d)?(\s?[AP]M)?\b/g;
const DURATION = /\b\d+(\.\d+)?(ms|s|m)\b/g;
/**
 * kubectl's mentions of the temporary file Argo CD hands it (`error when patching "/dev/shm/N": `,
 * ` from "/dev/shm/N"`): our engine writes no file (docs/differential.md#sync-engine-deviations).
 */
const KUBECTL_FILE = /error when [a-z]+ "\/dev\/shm\/\d+": | from "\/dev\/shm\/\d+"/g;
/** The gRPC frame of an error Argo CD's repo-server returned: our engine has no repo-server. */
const GRPC_FRAME = /rpc error: code = \w+ desc = /g;

const obj = (v: Json | undefined): Obj => (v !== null && typeof v === "object" && !Array.isArray(v) ? v : {});
const list = (v: Json | undefined): Json[] => (Array.isArray(v) ? v : []);

/** Only the keys of `o` that are present. */
function present(o: Record<string, Json | undefined>): Obj {
  return Object.fromEntries(Object.entries(o).filter((e): e is [string, Json] => e[1] !== undefined && e[1] !== null && e[1] !== ""));
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Normalises one string of a side. */
export function normaliseText(s: string, c: Context): string {
  // Argo CD writes a repository URL as given or normalised (lower case).
  const repo = new RegExp(escapeRegExp(c.repo), "gi");
  let out = s.replace(KUBECTL_FILE, "").replace(GRPC_FRAME, "").replace(repo, "$$REPO").split(c.ns).join("$NS");
  c.commits.forEach((sha, i) => {
    out = out.split(sha).join(`c${String(i)}`);
    out = out.split(sha.slice(0, 7)).join(`c${String(i)}`);
  });
  for (const g of c.generated) out = out.replace(new RegExp(`\\b${escapeRegExp(g)}[a-z0-9]{5}\\b`, "g"), `${g}*`);
  return out.replace(TIME, "<time>").replace(CLOCK, "<clock>").replace(DURATION, "<duration>");
}

function walk(v: Json | undefined, c: Context): Json | undefined {
  if (typeof v === "string") return normaliseText(v, c);
  if (Array.isArray(v)) return v.map((x) => walk(x, c) ?? null);
  if (v !== null && typeof v === "object")
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [normaliseText(k, c), walk(x, c) ?? null]));
  return v;
}

/** The keys of `r` that are compared (those present). */
const pick = (r: Json, keys: readonly string[]): Obj => present(Object.fromEntries(keys.map((k) => [k, obj(r)[k]])));

const RESOURCE_KEYS = ["group", "kind", "namespace", "name", "status"] as const;

/** One entry of `syncResult.resources` as compared. */
const syncedResource = (r: Json): Obj => pick(r, [...RESOURCE_KEYS, "message", "hookType", "hookPhase", "syncPhase", "images"]);

/** One entry of `status.resources` as compared (its health by status). */
const resourceStatus = (r: Json): Obj =>
  present({ ...pick(r, [...RESOURCE_KEYS, "hook", "requiresPruning"]), health: obj(obj(r)["health"])["status"] });

/** Condition types of a refresh its AppProject stopped (Argo CD's `refreshAppConditions`). */
const PROJECT_CONDITIONS = new Set(["InvalidSpecError", "UnknownError"]);

/**
 * Whether the Application has been refreshed at least once: compared (`status.reconciledAt`), or
 * stopped by its project's conditions, after which Argo CD writes sync and health Unknown but no
 * `reconciledAt`.
 */
export function refreshed(app: Obj): boolean {
  const st = obj(app["status"]);
  if (st["reconciledAt"] !== undefined) return true;
  return obj(st["sync"])["status"] === "Unknown" && list(st["conditions"]).some((x) => PROJECT_CONDITIONS.has(text(obj(x)["type"])));
}

/** The compared part of an Application (undefined: it does not exist). */
export function appObservation(app: Obj | undefined, c: Context): Json {
  if (app === undefined) return null;
  const st = obj(app["status"]);
  const op = obj(st["operationState"]);
  const result = obj(op["syncResult"]);
  const out = present({
    operationPending: app["operation"] === undefined ? undefined : true,
    sync: present({ status: obj(st["sync"])["status"], revision: obj(st["sync"])["revision"], revisions: obj(st["sync"])["revisions"] }),
    health: present({ status: obj(st["health"])["status"], message: obj(st["health"])["message"] }),
    operation:
      st["operationState"] === undefined
        ? undefined
        : present({
            phase: op["phase"],
            message: op["message"],
            retryCount: op["retryCount"],
            revision: result["revision"],
            revisions: result["revisions"],
            resources: orderWithinSlots(
              list(result["resources"]),
              (r) => `${text(obj(r)["syncPhase"])} ${c.slot(`${text(obj(r)["kind"])}/${text(obj(r)["name"])}`)}`,
              (r) => text(obj(r)["name"]),
            ).map(syncedResource),
          }),
    resources: list(st["resources"]).map(resourceStatus),
    history: list(st["history"]).map((h) => present({ id: obj(h)["id"], revision: obj(h)["revision"], revisions: obj(h)["revisions"] })),
    conditions: list(st["conditions"]).map((x) => present({ type: obj(x)["type"], message: obj(x)["message"] })),
    sourceType: st["sourceType"],
    sourceTypes: st["sourceTypes"],
    resourceHealthSource: st["resourceHealthSource"],
  });
  return walk(out, c) ?? null;
}

/** One write the watch saw. */
export interface Write {
  /** ADDED, CHANGED (content), FINALIZERS (their list), DELETING (deletion started), DELETED. */
  readonly verb: string;
  /** `Kind/name`. */
  readonly name: string;
  /** The object's place in the sync: its hook types (or `sync`) and wave; concurrent writes share it. */
  readonly slot: string;
  readonly rv: number;
  /** The finalizers, for FINALIZERS. */
  readonly detail?: string;
}

/** Annotations the engines write for themselves; they are not content. */
const OWN_ANNOTATIONS = new Set([
  "argocd.argoproj.io/tracking-id",
  "argocd.argoproj.io/installation-id",
  "kubectl.kubernetes.io/last-applied-configuration",
]);

/** What counts as an object's content: everything but status and server-set metadata. */
export function content(o: Obj): string {
  const m = obj(o["metadata"]);
  const annotations = Object.fromEntries(Object.entries(obj(m["annotations"])).filter(([k]) => !OWN_ANNOTATIONS.has(k)));
  const { metadata: _m, status: _s, ...rest } = o;
  return JSON.stringify({ ...rest, labels: m["labels"] ?? {}, annotations });
}

/** The writes one watch event stands for, given the object's previous state (undefined: unseen). */
export function writesOf(type: string, prev: Obj | undefined, cur: Obj, c: Context): Write[] {
  const m = obj(cur["metadata"]);
  const raw = `${text(cur["kind"])}/${text(m["name"])}`;
  const base = {
    name: normaliseText(raw, c),
    slot: c.slot(raw),
    rv: Number(m["resourceVersion"] ?? 0),
  };
  const fin = (o: Obj | undefined): string => JSON.stringify(list(obj(o?.["metadata"])["finalizers"]));
  const out: Write[] = [];
  if (type === "DELETED") return [{ ...base, verb: "DELETED" }];
  if (prev === undefined) {
    out.push({ ...base, verb: "ADDED" });
    if (fin(cur) !== "[]") out.push({ ...base, verb: "FINALIZERS", detail: fin(cur) });
    return out;
  }
  if (content(prev) !== content(cur)) out.push({ ...base, verb: "CHANGED" });
  if (fin(prev) !== fin(cur)) out.push({ ...base, verb: "FINALIZERS", detail: fin(cur) });
  if (obj(prev["metadata"])["deletionTimestamp"] == null && m["deletionTimestamp"] != null) out.push({ ...base, verb: "DELETING" });
  return out;
}

/**
 * `items` with each run of neighbours in one slot (objects of one wave, which the engines write
 * concurrently) ordered by name; the items of one name keep their order (an object's lifecycle).
 */
export function orderWithinSlots<T>(items: readonly T[], slot: (t: T) => string, name: (t: T) => string): T[] {
  const out: T[] = [];
  let run: T[] = [];
  const flush = (): void => {
    out.push(
      ...run
        .map((t, i) => ({ t, i }))
        .sort((a, b) => name(a.t).localeCompare(name(b.t)) || a.i - b.i)
        .map((x) => x.t),
    );
    run = [];
  };
  for (const t of items) {
    const last = run[run.length - 1];
    if (last !== undefined && slot(last) !== slot(t)) flush();
    run.push(t);
  }
  flush();
  return out;
}

/** The writes as compared: in the order of the apiserver's revisions, concurrent ones by name ({@link orderWithinSlots}). */
export function timeline(writes: readonly Write[]): string[] {
  const ordered = [...writes].sort((a, b) => a.rv - b.rv);
  return orderWithinSlots(
    ordered,
    (w) => w.slot,
    (w) => w.name,
  ).map((w) => `${w.verb} ${w.name}${w.detail ? ` ${w.detail}` : ""}`);
}

/** Where an object runs in a sync: its hook types (or `sync`) and wave. */
export function slotOfObject(o: Obj): string {
  const ann = obj(obj(o["metadata"])["annotations"]);
  const hook = typeof ann["argocd.argoproj.io/hook"] === "string" ? ann["argocd.argoproj.io/hook"] : "sync";
  const wave = typeof ann["argocd.argoproj.io/sync-wave"] === "string" ? ann["argocd.argoproj.io/sync-wave"] : "0";
  return `${hook}@${wave}`;
}
