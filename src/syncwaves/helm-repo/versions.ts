/**
 * Chart versions and `targetRevision` constraints as Argo CD's repo-server reads them (its
 * `util/versions`, on Masterminds' semver): a revision that parses as a version is a pin, used as
 * it is; anything else is a constraint, resolved to the highest version of the index that meets
 * it; a revision that is neither still matches a version of the same text. Versions parse
 * Masterminds' way (`v` optional, minor and patch optional: `v1.2` is 1.2.0); comparison and
 * ranges are npm's `semver`, with Masterminds' syntax translated: `,` joins comparators like a
 * space, `||` separates alternatives, `!=` excludes one version. As in both libraries, a
 * constraint without a pre-release never matches a pre-release version. Pure.
 */
import semver from "semver";

/** Masterminds' version syntax (its non-strict parser): major, optional minor and patch, pre-release, build. */
const VERSION =
  /^v?(0|[1-9]\d*)(?:\.(0|[1-9]\d*))?(?:\.(0|[1-9]\d*))?(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

/** A version read Masterminds' way, as npm's semver holds it; undefined when it is not one. */
export function parseVersion(text: string): semver.SemVer | undefined {
  const m = VERSION.exec(text);
  if (m === null) return undefined;
  const [, major, minor = "0", patch = "0", pre, build] = m;
  return new semver.SemVer(
    `${major ?? "0"}.${minor}.${patch}${pre === undefined ? "" : `-${pre}`}${build === undefined ? "" : `+${build}`}`,
  );
}

/** Whether a revision is an exact version (Argo CD's `versions.IsVersion`). */
export const isVersion = (revision: string): boolean => parseVersion(revision) !== undefined;

/** One alternative of a constraint: an npm range and the versions `!=` excludes. */
interface Alternative {
  readonly range: semver.Range;
  readonly excluded: readonly semver.SemVer[];
}

const NOT_EQUAL = /!=\s*([^\s,|]+)/g;

/** A Masterminds constraint as npm ranges; undefined when it does not parse. */
export function parseConstraint(text: string): readonly Alternative[] | undefined {
  if (text.trim() === "") return undefined;
  const out: Alternative[] = [];
  for (const part of text.split("||")) {
    const excluded: semver.SemVer[] = [];
    for (const m of part.matchAll(NOT_EQUAL)) {
      const v = parseVersion(m[1] ?? "");
      if (v === undefined) return undefined;
      excluded.push(v);
    }
    const rest = part.replace(NOT_EQUAL, " ").replace(/,/g, " ").trim();
    if (rest === "" && excluded.length === 0) return undefined;
    let range: semver.Range;
    try {
      range = new semver.Range(rest === "" ? "*" : rest);
    } catch {
      return undefined;
    }
    out.push({ range, excluded });
  }
  return out;
}

/** Whether `v` meets the constraint. */
export function meets(constraint: readonly Alternative[], v: semver.SemVer): boolean {
  return constraint.some((a) => a.range.test(v) && !a.excluded.some((x) => semver.eq(x, v)));
}

/** Why a revision resolves to no version; its message is Argo CD's. */
export class VersionResolutionError extends Error {}

/**
 * The version a revision names among `tags` (Argo CD's `versions.MaxVersion`): a version as
 * written; for a constraint, the highest tag that meets it, as the tag is written; otherwise a
 * tag of the same text.
 */
export function maxVersion(revision: string, tags: readonly string[]): string {
  if (isVersion(revision)) return revision;
  const constraint = parseConstraint(revision);
  if (constraint === undefined) {
    if (tags.includes(revision)) return revision;
    throw new VersionResolutionError(`failed to determine semver constraint: improper constraint: ${revision}`);
  }
  let best: { v: semver.SemVer; tag: string } | undefined;
  for (const tag of tags) {
    const v = parseVersion(tag);
    if (v === undefined || !meets(constraint, v)) continue;
    if (best === undefined || semver.gt(v, best.v)) best = { v, tag };
  }
  if (best === undefined) throw new VersionResolutionError(`version matching constraint not found in ${String(tags.length)} tags`);
  return best.tag;
}
