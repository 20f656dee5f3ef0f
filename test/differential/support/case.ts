/**
 * A differential case: the data file (`test/differential/cases/<name>.yaml`) that says what to set up
 * and which steps to run, once under Argo CD's ApplicationSet controller and once under ours. The
 * file is plain data; `${ns}` stands for the side's namespace and `${repo:NAME}` for the URL of the
 * case's Git repository NAME (the same repository for both sides), `${plugin}` for the base URL of
 * the case's plugin server, `${registry}` for the `host:port` of the case's OCI registry.
 */
import { join } from "node:path";
import { z } from "zod";
import { loadCasesWith, parseCaseWith } from "./corpus.js";

const KubeObject = z.record(z.string(), z.unknown());
const Names = z.union([z.literal("*"), z.array(z.string())]);

/** One step of a case's script; the harness observes both sides after each. */
export const Step = z.union([
  /** Creates the objects, or replaces those that exist. */
  z.strictObject({ apply: z.array(KubeObject) }),
  /** A JSON merge patch of one object. */
  z.strictObject({ patch: z.strictObject({ apiVersion: z.string().optional(), kind: z.string(), name: z.string(), merge: KubeObject }) }),
  /** Deletes one object, with a propagation policy when given. */
  z.strictObject({
    delete: z.strictObject({
      apiVersion: z.string().optional(),
      kind: z.string(),
      name: z.string(),
      propagation: z.enum(["Foreground", "Background", "Orphan"]).optional(),
    }),
  }),
  /** A commit in one of the case's repositories (a null content removes the file), then a refresh. */
  z.strictObject({ commit: z.strictObject({ repo: z.string(), files: z.record(z.string(), z.string().nullable()) }) }),
  /** Asks every ApplicationSet for a refresh, as the Git webhook does. */
  z.strictObject({ refresh: z.literal(true) }),
  /**
   * Acts as the application controller: completes the sync operations the ApplicationSet controller
   * wrote, records the refresh, and reports the given sync status and health for the named
   * Applications (all by default).
   */
  z.strictObject({
    appController: z.strictObject({
      apps: Names.default("*"),
      sync: z.enum(["Synced", "OutOfSync", "Unknown"]).optional(),
      health: z.enum(["Healthy", "Progressing", "Degraded", "Missing", "Suspended", "Unknown"]).optional(),
      /** Removes the finalizers of the Applications being deleted, as it does once their resources are gone. */
      finalize: z.boolean().default(false),
    }),
  }),
]);
export type Step = z.infer<typeof Step>;

/** The case file. */
export const CaseFile = z.strictObject({
  description: z.string(),
  /** In the fast subset `npm test` runs. */
  subset: z.boolean().default(false),
  /** Flags of both controllers (Argo CD's names; ours takes the same). */
  flags: z.array(z.string()).default([]),
  /** Objects created before the controllers start (AppProjects, cluster Secrets, ConfigMaps, CRDs). */
  setup: z.array(KubeObject).default([]),
  /** Git repositories by name: file path to content, committed once before the controllers start. */
  repos: z.record(z.string(), z.record(z.string(), z.string())).default({}),
  /** The plugin server's answer: the `output.parameters` it returns for every call (with `input` echoed when asked). */
  plugin: z.strictObject({ parameters: z.array(KubeObject), echoInput: z.boolean().default(false) }).optional(),
  /**
   * An OCI registry (plain HTTP and anonymous unless `registryUser`) holding these artifacts, pushed with oras before the
   * controllers start: `repository:tag` to the artifact's files (path to content).
   */
  registry: z.record(z.string(), z.record(z.string(), z.string())).optional(),
  /** The registry over HTTPS (a test CA) with token authentication: the user the token service accepts. */
  registryUser: z.strictObject({ username: z.string(), password: z.string() }).optional(),
  /** Compare the order of Application writes (creates, sync operations, deletions), not only the end states. */
  compareOrder: z.boolean().default(false),
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

/** What the placeholders of a case stand for on one side. */
export interface Placeholders {
  readonly ns: string;
  readonly repos: Readonly<Record<string, string>>;
  readonly plugin?: string;
  readonly registry?: string;
}

/** Replaces the placeholders in every string of `value`. */
export function substitute<T>(value: T, p: Placeholders): T {
  const one = (s: string): string =>
    s.replace(/\$\{(ns|plugin|registry|repo:([A-Za-z0-9_-]+))\}/g, (m, what: string, repo: string | undefined) => {
      if (what === "ns") return p.ns;
      if (what === "registry") {
        if (p.registry === undefined) throw new Error(`${m}: the case has no registry`);
        return p.registry;
      }
      if (what === "plugin") {
        if (p.plugin === undefined) throw new Error(`${m}: the case has no plugin`);
        return p.plugin;
      }
      const url = p.repos[repo ?? ""];
      if (url === undefined) throw new Error(`${m}: the case has no repository ${repo ?? ""}`);
      return url;
    });
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return one(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [one(k), walk(x)]));
    return v;
  };
  return walk(value) as T;
}
