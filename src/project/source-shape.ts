/**
 * The shape checks Argo CD makes of an Application's sources before their repositories: a source
 * needs a repository and a path or a chart (or, one of several, a ref), a chart needs a version,
 * and a hydrator needs a dry repository, a sync branch and, with `hydrateTo`, its branch. The
 * message about one of several sources prints it the way Go's `%s` prints the struct. Pure core:
 * facts from Argo CD v3.6.2 (`validateSourcePermissions`, `validateSourceHydrator` in util/argo).
 */
import type { ApplicationSource, SourceHydrator } from "../api/application.js";
import { SourceMessage } from "./messages.js";

/** The Go type names of a source's optional tool settings, in field order. */
const TOOL_FIELDS = [
  ["helm", "ApplicationSourceHelm"],
  ["kustomize", "ApplicationSourceKustomize"],
  ["directory", "ApplicationSourceDirectory"],
  ["plugin", "ApplicationSourcePlugin"],
] as const;

/**
 * A source as Go's `%s` prints Argo CD's `ApplicationSource` value: its fields in declaration
 * order, space-separated in braces, an unset tool setting as `nil`. A set tool setting prints as
 * `&<Type>{…}` (Argo CD prints all of its fields there; this does not).
 */
export function goSourceString(source: ApplicationSource): string {
  const tools = TOOL_FIELDS.map(([field, type]) => (source[field] === undefined ? "nil" : `&${type}{…}`));
  const head = [source.repoURL, source.path ?? "", source.targetRevision ?? ""];
  const tail = [source.chart ?? "", source.ref ?? "", source.name ?? "", source.tagPrefix ?? ""];
  return `{${[...head, ...tools, ...tail].join(" ")}}`;
}

/** True when a source lacks its repository, or any of a path, a chart and (one of several) a ref. */
function lacksContent(source: ApplicationSource, multiple: boolean): boolean {
  if (source.repoURL === "") return true;
  const content = [source.path, source.chart, ...(multiple ? [source.ref] : [])];
  return content.every((v) => (v ?? "") === "");
}

/** The shape error of one source, or undefined; `multiple` when it is one of `spec.sources`. */
export function sourceShapeError(source: ApplicationSource, multiple: boolean): string | undefined {
  if (lacksContent(source, multiple))
    return multiple ? SourceMessage.missingPathChartOrRef(goSourceString(source)) : SourceMessage.missingPathOrChart;
  if ((source.chart ?? "") !== "" && (source.targetRevision ?? "") === "") return SourceMessage.chartWithoutRevision;
  return undefined;
}

/** The shape errors of a source hydrator, in Argo CD's order (all of them, not only the first). */
export function hydratorShapeErrors(hydrator: SourceHydrator): string[] {
  const errors: string[] = [];
  if (hydrator.drySource.repoURL === "") errors.push(SourceMessage.hydratorDryRepoMissing);
  if (hydrator.syncSource.targetBranch === "") errors.push(SourceMessage.hydratorSyncBranchMissing);
  if (hydrator.hydrateTo !== undefined && hydrator.hydrateTo.targetBranch === "") errors.push(SourceMessage.hydratorHydrateToBranchMissing);
  return errors;
}
