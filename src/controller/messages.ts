/**
 * The controller's own texts, in Argo CD's words: validation, destination lookups, status
 * truncation, controller-runtime's owner-reference error (docs/troubleshooting.md#common-errors).
 * Condition types, reasons and fixed condition messages live in `src/api/appset-status.ts`; these are
 * the parameterised ones the reconcile path builds, kept here so the planner contains no inline
 * literals.
 */

/** Per-Application validation errors (docs/controller.md#validation). */
export const ValidationMessage = {
  noName: (appSet: string): string =>
    `ApplicationSet ${appSet} contains an application with no name; a name must be set in the template's metadata.name or via a templatePatch (generateName is not supported)`,
  duplicateName: (appSet: string, name: string): string => `ApplicationSet ${appSet} contains applications with duplicate name: ${name}`,
  missingProject: (project: string): string => `application references project ${project} which does not exist`,
  invalidDestination: (cause: string): string => `application destination spec is invalid: ${cause}`,
  tooLarge: (name: string, bytes: number, max: number): string =>
    `application ${name} is ${String(bytes)} bytes as JSON, more than the ${String(max)} an Application may have (with room left for its status); make the template produce less`,
} as const;

/** An existing Application's update refused because an ignore rule's jq expression does not parse. */
export function ignoreDifferencesError(parseError: string): string {
  return `failed to apply ignore differences: failed to normalize application spec: ${parseError}`;
}

/** controller-runtime's `AlreadyOwnedError`, returned when another controller owns the Application. */
export function alreadyOwnedMessage(namespace: string, name: string, ownerKind: string, ownerName: string): string {
  // Argo CD's create-or-update wraps what its mutate step returns (the owner check is one).
  return `error while wrapping using MutateFn: Object ${namespace}/${name} is already owned by another ${ownerKind} controller ${ownerName}`;
}

/** The error returned when writing `status.resources` fails. */
export function resourcesStatusError(cause: string): string {
  return `failed to update resources status for application set: ${cause}`;
}

/** The warning logged when `status.resources` is truncated (docs/controller.md#status). */
export function truncationWarning(appSet: string, from: number, to: number): string {
  return `Truncating ApplicationSet ${appSet} resource status from ${String(from)} to max allowed ${String(to)} entries`;
}
