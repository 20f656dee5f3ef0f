/**
 * Validation of generated Applications (spec §4.2), in generation order: an empty name, a duplicate
 * name (every Application with that name fails, the first included), a project that does not exist
 * in the controller namespace, a destination that does not resolve. Pure: projects and clusters come
 * from the snapshot. Invalid Applications are neither created, updated nor deleted.
 */
import { andMoreSuffix, ApplicationDefaults, type ApplicationSet } from "../api/index.js";
import type { RenderedApplication } from "../generators/applications.js";
import { resolveDestination, type KnownCluster } from "./destination.js";
import { ValidationMessage } from "./messages.js";

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

function checkOne(app: RenderedApplication, projects: ReadonlySet<string>, known: readonly KnownCluster[]): string | undefined {
  const spec = (app.spec ?? {}) as RenderedSpec;
  const project = typeof spec.project === "string" ? spec.project : "";
  if (!projects.has(project === "" ? ApplicationDefaults.project : project)) return ValidationMessage.missingProject(project);
  const dest = resolveDestination(spec.destination, known);
  return dest.ok ? undefined : ValidationMessage.invalidDestination(dest.error);
}

/** Validates `apps` (the generation output, sorted by name). */
export function validateApplications(
  appSet: ApplicationSet,
  apps: readonly RenderedApplication[],
  ctx: { readonly projects: ReadonlySet<string>; readonly clusters: readonly KnownCluster[] },
): Validation {
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
    const err = checkOne(app, ctx.projects, ctx.clusters);
    if (err !== undefined) errors.set(key, err);
  }
  const sorted = new Map([...errors.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { valid: apps.filter((a) => !sorted.has(qualified(a))), errors: sorted };
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
