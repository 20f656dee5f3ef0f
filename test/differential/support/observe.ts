/**
 * What a user or a tool can observe of one side after a step, normalised so the two sides compare:
 * the side's namespace becomes `$NS`, timestamps `<time>`, and what the API server generates (uids,
 * resourceVersions, generations, creation times, managed fields) is left out. Pure: the runner reads
 * the objects, these functions shape them.
 */

/** A JSON object as read from the API. */
export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = Record<string, Json>;

/** The normalised state of one side. */
export interface Observation {
  readonly applications: Record<string, Json>;
  readonly applicationSets: Record<string, Json>;
  /** `Type Reason Kind/name: message`, sorted, each once. */
  readonly events: string[];
}

const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;

/** Replaces the namespace and timestamps in every string of `v` (object keys included). */
export function normaliseStrings(v: Json, ns: string): Json {
  const one = (s: string): string => (TIME.test(s) ? "<time>" : s.split(ns).join("$NS"));
  if (typeof v === "string") return one(v);
  if (Array.isArray(v)) return v.map((x) => normaliseStrings(x, ns));
  if (v !== null && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [one(k), normaliseStrings(x, ns)]));
  return v;
}

/** A field as text (a string as it is, anything else as JSON). */
export const text = (v: Json | undefined): string => (typeof v === "string" ? v : (JSON.stringify(v) ?? ""));

const obj = (v: Json | undefined): Obj => (v !== null && typeof v === "object" && !Array.isArray(v) ? v : {});

/** Only the keys of `o` that are present. */
function present(o: Record<string, Json | undefined>): Obj {
  return Object.fromEntries(Object.entries(o).filter((e): e is [string, Json] => e[1] !== undefined));
}

/** The metadata a user sees on an object: labels, annotations, finalizers, owner references (without uid), being deleted. */
function metadata(o: Obj): Obj {
  const m = obj(o["metadata"]);
  const owners = Array.isArray(m["ownerReferences"])
    ? m["ownerReferences"].map((r) => {
        const { uid: _uid, ...rest } = obj(r);
        return rest;
      })
    : undefined;
  return present({
    labels: m["labels"],
    annotations: m["annotations"],
    finalizers: m["finalizers"],
    ownerReferences: owners,
    deleting: m["deletionTimestamp"] !== undefined ? true : undefined,
  });
}

/** One Application as observed. */
export function observeApplication(app: Obj): Json {
  return present({ metadata: metadata(app), spec: app["spec"], operation: app["operation"], status: app["status"] });
}

/** The condition type only this controller writes; observed apart, so that it is a difference of its own. */
const OWN_CONDITION = "SpecWarning";

/**
 * One ApplicationSet as observed: its metadata and status (the spec is the case's own input). A
 * `SpecWarning` condition is taken out of `status.conditions` into `specWarning`.
 */
export function observeApplicationSet(set: Obj): Json {
  const status = obj(set["status"]);
  const all = Array.isArray(status["conditions"])
    ? status["conditions"].map((c) => {
        const { lastTransitionTime: _t, ...rest } = obj(c);
        return rest;
      })
    : undefined;
  const own = all?.find((c) => c["type"] === OWN_CONDITION);
  const conditions = all?.filter((c) => c !== own);
  return present({
    metadata: metadata(set),
    status: set["status"] === undefined ? undefined : present({ ...status, conditions }),
    specWarning: own,
  });
}

/** One Event as a line. */
export function eventLine(e: Obj): string {
  const io = obj(e["involvedObject"]);
  return `${text(e["type"])} ${text(e["reason"])} ${text(io["kind"])}/${text(io["name"])}: ${text(e["message"])}`;
}

/** The observation of one side from the objects read in its namespace `ns`. */
export function observe(ns: string, apps: readonly Obj[], sets: readonly Obj[], events: readonly Obj[]): Observation {
  const byName = (list: readonly Obj[], f: (o: Obj) => Json): Record<string, Json> =>
    Object.fromEntries(list.map((o) => [text(obj(o["metadata"])["name"]), f(o)] as const).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return normaliseStrings(
    {
      applications: byName(apps, observeApplication),
      applicationSets: byName(sets, observeApplicationSet),
      events: [...new Set(events.map(eventLine))].sort(),
    },
    ns,
  ) as unknown as Observation;
}

/**
 * One entry of the write timeline from a watch event on Applications, given the object's previous
 * state: `create NAME`, `sync NAME REVISIONS` (an operation written), `delete NAME` (a deletion
 * requested), `gone NAME`; undefined when the change is none of these.
 */
export function timelineEntry(type: "ADDED" | "MODIFIED" | "DELETED", prev: Obj | undefined, cur: Obj): string | undefined {
  const name = text(obj(cur["metadata"])["name"]);
  if (type === "ADDED") return `create ${name}`;
  if (type === "DELETED") return `gone ${name}`;
  const was = obj(prev?.["metadata"]);
  if (was["deletionTimestamp"] === undefined && obj(cur["metadata"])["deletionTimestamp"] !== undefined) return `delete ${name}`;
  if (prev?.["operation"] === undefined && cur["operation"] !== undefined) {
    const sync = obj(obj(cur["operation"])["sync"]);
    const revs = sync["revisions"] ?? sync["revision"] ?? "";
    return `sync ${name} ${JSON.stringify(revs)}`;
  }
  return undefined;
}
