/**
 * The sources of an Application, as Argo CD lists them (docs/sync-engine.md#multiple-sources):
 * `spec.sources` when it has any (then the Application is multi-source, even with one), else
 * `spec.source`. A source with `ref: <name>` lends its repository to the other sources' Helm value
 * files and file parameters as `$<name>/<path>`; without a `path` (and without a `chart`) it
 * renders nothing itself. Pure: which sources, which revisions, which references, and where a
 * `$<name>/...` path lands inside the referenced repository.
 */
import type { Application, ApplicationSource, HelmSource } from "../api/index.js";
import { AppSetError } from "../errors.js";
import { MANIFEST_ERROR } from "./manifests.js";
import { envsubst, type EnvEntry } from "./render/envsubst.js";
import { DEFAULT_VALUE_FILE_SCHEMES, resolveRepoPath } from "./render/repo-paths.js";

/** True when `spec.sources` has any source: Argo CD then ignores `spec.source`. */
export function hasMultipleSources(app: Application): boolean {
  return (app.spec.sources?.length ?? 0) > 0;
}

/** The sources the Application deploys, in order. */
export function sourcesOf(app: Application): ApplicationSource[] {
  if (hasMultipleSources(app)) return [...(app.spec.sources ?? [])];
  return app.spec.source !== undefined ? [app.spec.source] : [];
}

/** The source that stands for the Application (`syncResult.source`): the first of its sources. */
export function primarySource(app: Application): ApplicationSource | undefined {
  return sourcesOf(app)[0];
}

/** True for a source that only lends its repository: a `ref`, no `path`, no `chart`. */
export function isRefOnly(source: ApplicationSource): boolean {
  return (source.ref ?? "") !== "" && (source.path ?? "") === "" && (source.chart ?? "") === "";
}

/** A source other sources reference as `$<ref>`, at the revision to read it at. */
export interface RefTarget {
  readonly repoURL: string;
  readonly targetRevision: string;
  readonly chart?: string;
}

/** Why the sources' references cannot be collected: Argo CD reports it before any manifest is generated. */
export class RefSourcesError extends AppSetError {
  constructor(message: string) {
    super(MANIFEST_ERROR, `failed to get ref sources: ${message}`);
  }
}

const REF_KEY = /^[a-zA-Z0-9_-]+$/;

/**
 * The `$<ref>` → target map of the sources; a source's revision is `revisions[i]` when given (a
 * sync's pinned or requested revisions), else its targetRevision.
 */
export function refTargets(sources: readonly ApplicationSource[], revisions: readonly (string | undefined)[] = []): Map<string, RefTarget> {
  const out = new Map<string, RefTarget>();
  for (const s of sources) {
    const ref = s.ref ?? "";
    if (ref === "") continue;
    if (!REF_KEY.test(ref)) throw new RefSourcesError(`sources.ref ${ref} cannot contain any special characters except '_' and '-'`);
    if (out.has(`$${ref}`)) throw new RefSourcesError("invalid sources: multiple sources had the same `ref` key");
    out.set(`$${ref}`, { repoURL: "", targetRevision: "" });
  }
  sources.forEach((s, i) => {
    const ref = s.ref ?? "";
    if (ref === "") return;
    const revision = revisions[i] || s.targetRevision || "";
    out.set(`$${ref}`, { repoURL: s.repoURL, targetRevision: revision, ...(s.chart ? { chart: s.chart } : {}) });
  });
  return out;
}

/** The `$<name>` a value file path starts with, or undefined. */
export function refNameOf(valueFile: string): string | undefined {
  return valueFile.startsWith("$") ? valueFile.split("/")[0] : undefined;
}

/** The value files and file parameters of a Helm source, in Argo CD's order (they may reference other sources). */
function refCandidates(helm: HelmSource | undefined): string[] {
  return [...(helm?.valueFiles ?? []), ...(helm?.fileParameters ?? []).map((p) => p.path ?? "")];
}

/**
 * The references a Helm source of a multi-source Application makes, checked as Argo CD's repo
 * server checks them: each `$<name>` must be a ref source, and not one with a chart.
 */
export function referencedTargets(helm: HelmSource | undefined, refs: ReadonlyMap<string, RefTarget>): Map<string, RefTarget> {
  const out = new Map<string, RefTarget>();
  for (const file of refCandidates(helm)) {
    const name = refNameOf(file);
    if (name === undefined) continue;
    const target = refs.get(name);
    if (target === undefined) {
      if (refs.size === 0) throw new AppSetError(MANIFEST_ERROR, `source referenced "${name}", but no source has a 'ref' field defined`);
      const keys = [...refs.keys()].join(", ");
      throw new AppSetError(MANIFEST_ERROR, `source referenced "${name}", which is not one of the available sources (${keys})`);
    }
    if ((target.chart ?? "") !== "") {
      throw new AppSetError(
        MANIFEST_ERROR,
        "source has a 'chart' field defined, but Helm charts are not yet not supported for 'ref' sources",
      );
    }
    out.set(name, target);
  }
  return out;
}

/**
 * The file a `$<name>/<path>` value file names inside the referenced repository (relative to its
 * root), or a URL: the first segment is dropped and the rest resolved from the repository's root
 * after `$VAR` substitution; `..` that leaves the repository is refused with Argo CD's message.
 */
export function refValueFile(
  valueFile: string,
  env: readonly EnvEntry[],
  schemes: readonly string[] = DEFAULT_VALUE_FILE_SCHEMES,
): { file: string } | { url: string } {
  const rest = ["", ...valueFile.split("/").slice(1)].join("/");
  try {
    return resolveRepoPath("", envsubst(rest, env), schemes);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new AppSetError(MANIFEST_ERROR, `error resolving value file path: ${message}`);
  }
}

/** `revisions[i]` when the list has one for every source, as Argo CD reads a sync's revisions. */
export function revisionsFor(sources: readonly ApplicationSource[], revisions: readonly string[] | undefined): (string | undefined)[] {
  return sources.map((_, i) => (revisions !== undefined && revisions.length >= sources.length ? revisions[i] || undefined : undefined));
}
