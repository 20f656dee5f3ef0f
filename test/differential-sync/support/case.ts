/**
 * A differential sync case: the data file (`test/differential-sync/cases/<name>.yaml`) that says
 * what the Application's Git repository holds, how the Application is set up and which steps to
 * run, once under Argo CD's application controller and once under our sync engine. The file is
 * plain data; `${ns}` stands for the side's namespace (the Application's and its destination's),
 * so cluster-scoped names (`${ns}-extra`, `widgets.${ns}.example.com`) are the side's own too; in
 * `setup` objects and in `app` `${repo}` stands for the side's repository URL.
 */
import { join } from "node:path";
import { z } from "zod";
import { loadCasesWith, parseCaseWith } from "../../differential/support/corpus.js";

const KubeObject = z.record(z.string(), z.unknown());
const Files = z.record(z.string(), z.string().nullable());
const Ref = z.strictObject({ apiVersion: z.string().optional(), kind: z.string(), name: z.string(), namespace: z.string().optional() });

/** One step of a case's script; the harness observes both sides after each. */
export const Step = z.union([
  /** Starts a sync operation, as `argocd app sync` writes it (`prune`, `dryRun`, `resources`, `syncOptions`, `retry`…). */
  z.strictObject({ sync: z.record(z.string(), z.unknown()) }),
  /** A commit to the Application's repository (a null content removes the file), then a refresh. */
  z.strictObject({ commit: Files }),
  /** A JSON merge patch of the Application (its spec, say), then a refresh. */
  z.strictObject({ patchApp: KubeObject }),
  /** Asks for a refresh (`argocd.argoproj.io/refresh: normal`). */
  z.strictObject({ refresh: z.literal(true) }),
  /** Terminates the running operation, as `argocd app terminate-op` does. */
  z.strictObject({ terminate: z.literal(true) }),
  /** Creates the objects in the destination, or replaces those that exist (drift made by hand). */
  z.strictObject({ apply: z.array(KubeObject) }),
  /** A JSON merge patch of a live object (by `fieldManager`, when given, as a controller would write it). */
  z.strictObject({ patch: Ref.extend({ merge: KubeObject, fieldManager: z.string().optional() }) }),
  /** Deletes a live object. */
  z.strictObject({ delete: Ref }),
  /** Deletes the Application (with its finalizers, the engine deletes its resources first). */
  z.strictObject({ deleteApp: z.literal(true) }),
  /** Waits before settling (seconds): time for a back-off or a periodic loop to act. */
  z.strictObject({ wait: z.number().positive().max(120) }),
]);
export type Step = z.infer<typeof Step>;

/** The case file. */
export const CaseFile = z.strictObject({
  description: z.string(),
  /** In the fast subset `npm test` runs. */
  subset: z.boolean().default(false),
  /** The repository's first commit: path to content. */
  files: z.record(z.string(), z.string()),
  /**
   * Merged into the Application's spec (source `path` defaults to `app`, destination is `${ns}`);
   * with `sources` there is no default `source`, and `${repo}` is the side's repository URL.
   */
  app: KubeObject.default({}),
  /** The Application's finalizers (`resources-finalizer.argocd.argoproj.io`: deletion cascades). */
  finalizers: z.array(z.string()).default([]),
  /** Keys added to the side's argocd-cm (`cluster.inClusterEnabled`, say). */
  argocdCm: z.record(z.string(), z.string()).default({}),
  /**
   * The Application's own namespace (default `${ns}`, Argo CD's namespace): another one is created
   * for the case, and both engines serve it through `application.namespaces`.
   */
  appNamespace: z.string().optional(),
  /** Objects created in the side's namespace (or cluster-wide) before the Application. */
  setup: z.array(KubeObject).default([]),
  /** Kinds whose writes in the destination are recorded (core and apps/batch kinds, or the case's own CRD kinds). */
  watch: z.array(z.string()).default(["ConfigMap"]),
  /**
   * Steps (0-based) after which the operation is meant to be still running (a hook that never
   * ends, before a terminate): they settle once nothing changed for the quiet time.
   */
  runningAfter: z.array(z.number().int().nonnegative()).default([]),
  /** Settle only once nothing changed for this long (ms): longer for automated-sync cases. */
  quietMs: z.number().int().positive().default(3_000),
  steps: z.array(Step).min(1),
});
export type CaseFile = z.infer<typeof CaseFile>;

/** A loaded case. */
export interface Case extends CaseFile {
  readonly name: string;
}

/** The directory of the corpus. */
export const CASES_DIR = join(import.meta.dirname, "..", "cases");

/** Parses one case file's text (`name` is the file's base name). */
export const parseCase = (name: string, text: string): Case => parseCaseWith(CaseFile, name, text);

/** Every case of the corpus, by file name order. */
export const loadCases = (dir = CASES_DIR): Case[] => loadCasesWith(CaseFile, dir);

/** Replaces `${ns}` in every string of `value` (object keys included). */
export function substitute<T>(value: T, ns: string): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return v.split("${ns}").join(ns);
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [walk(k), walk(x)]));
    return v;
  };
  return walk(value) as T;
}

/** Every file a case commits, first commit then steps, as (path, content or null) pairs. */
export function caseFiles(c: CaseFile): Array<[string, string | null]> {
  return [...Object.entries(c.files), ...c.steps.flatMap((s) => ("commit" in s ? Object.entries(s.commit) : []))];
}

/** True for a Helm chart's template among `files`: Go template text, not YAML, until helm renders it. */
export function isChartTemplate(files: ReadonlyArray<readonly [string, unknown]>, path: string): boolean {
  const charts = files.filter(([p]) => p.endsWith("Chart.yaml")).map(([p]) => p.slice(0, -"Chart.yaml".length));
  return charts.some((dir) => path.startsWith(`${dir}templates/`));
}
