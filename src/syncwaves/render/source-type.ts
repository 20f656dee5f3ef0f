/**
 * Which tool renders a source (docs/sync-engine.md#sources), decided as Argo CD's repo server
 * decides it: an explicit `helm`, `kustomize`, `directory` or `plugin` block names the type (two
 * blocks are an error); otherwise the files directly in the source's path do: a kustomization file
 * makes it Kustomize, else a file named `…Chart.yaml` makes it Helm, else it is a Directory.
 * Pure.
 */
import type { ApplicationSource } from "../../api/index.js";
import { AppSetError } from "../../errors.js";
import { MANIFEST_ERROR } from "../manifests.js";

/** `status.sourceType` values. */
export const SourceType = {
  Directory: "Directory",
  Helm: "Helm",
  Kustomize: "Kustomize",
  Plugin: "Plugin",
} as const;
export type SourceType = (typeof SourceType)[keyof typeof SourceType];

/** The file names Kustomize reads as a kustomization, in the order it looks for them. */
export const KUSTOMIZATION_NAMES = ["kustomization.yaml", "kustomization.yml", "Kustomization"] as const;

/** The type an explicit options block names, in Argo CD's order of the check; undefined when none does. */
export function explicitType(source: ApplicationSource): SourceType | undefined {
  const named: SourceType[] = [];
  if (source.kustomize) named.push(SourceType.Kustomize);
  if (source.helm) named.push(SourceType.Helm);
  if (source.directory) named.push(SourceType.Directory);
  if (source.plugin) named.push(SourceType.Plugin);
  if (named.length > 1)
    throw new AppSetError(MANIFEST_ERROR, `error getting app source type: multiple application sources defined: ${named.join(",")}`);
  return named[0];
}

/** The type of a source whose path directly holds the files named `names`. */
export function sourceTypeOf(source: ApplicationSource, names: readonly string[]): SourceType {
  const explicit = explicitType(source);
  if (explicit !== undefined) return explicit;
  if (names.some((n) => (KUSTOMIZATION_NAMES as readonly string[]).includes(n))) return SourceType.Kustomize;
  if (names.some((n) => n.endsWith("Chart.yaml"))) return SourceType.Helm;
  return SourceType.Directory;
}
