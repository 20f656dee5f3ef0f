/**
 * gosimple/slug's `Make` as the Pull Request generator configures it (`MaxLength = 50`, `_` → `-`,
 * English substitutions, smart truncation at a dash): used for `branch_slug` and
 * `target_branch_slug`. Non-ASCII letters are transliterated by dropping their accents.
 */
import { slugMake } from "../template/index.js";

const SUBSTITUTIONS: ReadonlyArray<readonly [RegExp, string]> = [
  [/_/g, "-"],
  [/["'’]/g, ""],
  [/[‒–—―]/g, "-"],
  [/&/g, "and"],
  [/@/g, "at"],
];

/** The slug of a branch name, at most 50 characters. */
export function branchSlug(branch: string): string {
  let s = branch.trim();
  for (const [re, to] of SUBSTITUTIONS) s = s.replace(re, to);
  s = s.normalize("NFKD").replace(/[\u0300-\u036f]/g, "");
  return slugMake(s, 50, true);
}
