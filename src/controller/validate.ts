/**
 * Validation of generated Applications (docs/controller.md#validation), in generation order: an
 * empty name, a duplicate name (every Application with that name fails, the first included), a
 * size over {@link MAX_APPLICATION_BYTES}, a project that does not exist in the controller
 * namespace, a destination that does not resolve.
 * Pure: projects and clusters come from the snapshot. Invalid Applications are neither created,
 * updated nor deleted.
 */
import { andMoreSuffix, type ApplicationSet } from "../api/index.js";
import type { RenderedApplication } from "../generators/applications.js";
import { resolveDestination, type KnownClusters } from "../project/index.js";
import { ValidationMessage } from "./messages.js";

/**
 * The largest generated Application, as JSON, by default (`--max-application-bytes`): 1 MiB, leaving
 * half a MiB of the 1.5 MiB etcd stores for the status Argo CD's application controller adds.
 */
export const MAX_APPLICATION_BYTES = 1_048_576;

/** The result of validating the generated Applications. */
export interface Validation {
  /** Applications that passed, in input order. */
  readonly valid: RenderedApplication[];
  /** Error per failing Application, keyed by `namespace/name` (sorted by key). */
  readonly errors: ReadonlyMap<string, string>;
}

interface RenderedSpec {
  project?: unknown;
  destination?: { name?: string; server?: string };
}

function qualified(app: RenderedApplication): string {
  return `${app.metadata.namespace ?? ""}/${app.metadata.name ?? ""}`;
}

function appSetName(appSet: ApplicationSet): string {
  return appSet.metadata.name ?? "";
}

function checkOne(app: RenderedApplication, projects: ReadonlySet<string>, known: KnownClusters): string | undefined {
  const spec = (app.spec ?? {}) as RenderedSpec;
  const project = typeof spec.project === "string" ? spec.project : "";
  // Looked up by the name as written: an empty project is not `default` here (Argo CD reports it missing).
  if (!projects.has(project)) return ValidationMessage.missingProject(project);
  const dest = resolveDestination(spec.destination, known);
  return dest.ok ? undefined : ValidationMessage.invalidDestination(dest.error);
}

/** Validates `apps` (the generation output, sorted by name). */
export function validateApplications(
  appSet: ApplicationSet,
  apps: readonly RenderedApplication[],
  ctx: { readonly projects: ReadonlySet<string>; readonly clusters: KnownClusters; readonly maxBytes?: number },
): Validation {
  const errors = checkApplications(appSet, apps, (app) => checkOne(app, ctx.projects, ctx.clusters), ctx.maxBytes);
  return { valid: apps.filter((a) => !errors.has(qualified(a))), errors };
}

/**
 * The name checks alone (an empty name, a duplicate name), with the same messages and keys as
 * {@link validateApplications}: what can be checked without the projects and clusters.
 */
export function validateApplicationNames(appSet: ApplicationSet, apps: readonly RenderedApplication[]): ReadonlyMap<string, string> {
  return checkApplications(appSet, apps, () => undefined);
}

/** The name checks, then `more` on each Application with a valid unique name; errors sorted by key. */
function checkApplications(
  appSet: ApplicationSet,
  apps: readonly RenderedApplication[],
  more: (app: RenderedApplication) => string | undefined,
  maxBytes = MAX_APPLICATION_BYTES,
): ReadonlyMap<string, string> {
  const errors = new Map<string, string>();
  const seen = new Set<string>();
  for (const app of apps) {
    const name = app.metadata.name ?? "";
    const key = qualified(app);
    if (name === "") {
      errors.set(key, ValidationMessage.noName(appSetName(appSet)));
      continue;
    }
    if (seen.has(key)) {
      errors.set(key, ValidationMessage.duplicateName(appSetName(appSet), name));
      continue;
    }
    seen.add(key);
    const bytes = Buffer.byteLength(JSON.stringify(app));
    const err = bytes > maxBytes ? ValidationMessage.tooLarge(name, bytes, maxBytes) : more(app);
    if (err !== undefined) errors.set(key, err);
  }
  return new Map([...errors.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * The ErrorOccurred message of a pass with validation errors: the error of the last failing
 * Application in sorted qualified-name order, with " (and N more)" when more failed.
 */
export function validationMessage(errors: ReadonlyMap<string, string>): string {
  const messages = [...errors.values()];
  const last = messages[messages.length - 1] ?? "";
  return messages.length > 1 ? last + andMoreSuffix(messages.length - 1) : last;
}
