/**
 * Argo CD's pattern lists (`glob.MatchStringInList`): an entry wrapped in slashes (`/^team-.*$/`,
 * more than two characters) is a regular expression, searched anywhere in the text unless it is
 * anchored, as Argo CD's regexp2 does; any other entry is a glob of {@link globMatch}'s dialect.
 * Used for the namespaces a controller serves (`--applicationset-namespaces`,
 * `application.namespaces`) and a project's `sourceNamespaces`. A regular expression that does
 * not compile matches nothing. The lists are the platform team's settings, not tenants' input.
 * Pure.
 */
import { globMatch } from "./glob.js";

/** True when `entry` is written as a regular expression (`/…/`). */
function isRegExpEntry(entry: string): boolean {
  return entry.length > 2 && entry.startsWith("/") && entry.endsWith("/");
}

/** The compiled test of one entry. */
function entryTest(entry: string): (text: string) => boolean {
  if (isRegExpEntry(entry)) {
    let re: RegExp | undefined;
    try {
      re = new RegExp(entry.slice(1, -1));
    } catch {
      re = undefined;
    }
    // Argo CD tries the entry as a glob too when the expression does not match.
    return (text) => (re?.test(text) ?? false) || globMatch(entry, text);
  }
  return (text) => globMatch(entry, text);
}

/** A compiled pattern list: true when any entry matches the whole text (globs) or in part (`/regex/`). */
export function patternListMatcher(entries: readonly string[]): (text: string) => boolean {
  const tests = entries.map(entryTest);
  return (text) => tests.some((t) => t(text));
}

/** True when `text` matches an entry of `entries` (Argo CD's `MatchStringInList` in its regexp mode). */
export function matchStringInList(entries: readonly string[], text: string): boolean {
  return patternListMatcher(entries)(text);
}
