/**
 * Which of a project's sync windows apply to an Application, as Argo CD v3.6's
 * `SyncWindows.Matches`: by Application name, destination cluster (name or server URL) and
 * destination namespace, each a list of Argo CD globs; any list matching is enough, or, with
 * `andOperator`, every list the window sets must match. Pure.
 */
import type { SyncWindow } from "../api/appproject.js";
import { globMatch } from "../glob/index.js";

/** What windows are matched against: the Application's name and its destination. */
export interface SyncWindowApplication {
  /** The Application's `metadata.name` (not qualified by its namespace). */
  readonly name: string;
  /** The destination namespace (`spec.destination.namespace`), not the Application's own namespace. */
  readonly namespace?: string | undefined;
  /** The destination server URL (`spec.destination.server`); empty or absent when not set. */
  readonly server?: string | undefined;
  /** The destination cluster name (`spec.destination.name`); empty or absent when not set. */
  readonly clusterName?: string | undefined;
}

/** Argo CD's project glob without negation: `*` matches everything, else `glob.Match`. */
const matches = (pattern: string, text: string): boolean => pattern === "*" || globMatch(pattern, text);

/** How one of a window's lists fares: not set, set and matched, set and not matched. */
type ListResult = "unset" | "match" | "miss";

/** Tests a window list against one or more texts (an empty text is never tried, except for namespaces). */
function listResult(patterns: readonly string[] | undefined, texts: readonly string[]): ListResult {
  if (patterns === undefined || patterns.length === 0) return "unset";
  return patterns.some((pattern) => texts.some((text) => matches(pattern, text))) ? "match" : "miss";
}

/** The three lists of a window tested against `app`, in Argo CD's order. */
function listResults(window: SyncWindow, app: SyncWindowApplication): ListResult[] {
  const clusters = [app.clusterName ?? "", app.server ?? ""].filter((text) => text !== "");
  return [
    listResult(window.applications, [app.name]),
    listResult(window.clusters, clusters),
    listResult(window.namespaces, [app.namespace ?? ""]),
  ];
}

/**
 * With `andOperator`: every list the window sets must match, and at least one must be set. Without:
 * any list that matches is enough. A window that sets no list applies to nothing.
 */
function windowApplies(window: SyncWindow, app: SyncWindowApplication): boolean {
  const results = listResults(window, app);
  if (window.andOperator === true) return !results.includes("miss") && results.includes("match");
  return results.includes("match");
}

/**
 * The windows that apply to `app`, in their order (Argo CD's `SyncWindows.Matches`). Application
 * names are matched against `applications`, the destination's cluster name and server URL (each when
 * not empty) against `clusters`, the destination namespace against `namespaces`. Empty when none.
 */
export function matchingWindows(windows: readonly SyncWindow[] | undefined, app: SyncWindowApplication): SyncWindow[] {
  return (windows ?? []).filter((window) => windowApplies(window, app));
}
