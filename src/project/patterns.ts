/**
 * The pattern rules AppProject checks share: a `!` prefix makes a pattern a denial, and a
 * negatable match inverts the glob of a denial; a bare `*` matches anything, separators
 * included. Globs are Argo CD's (`src/glob`). Pure core: facts from Argo CD v3.6.2
 * (pkg/apis/application/v1alpha1/app_project_types.go).
 */
import { globMatch } from "../glob/index.js";

/** True when `pattern` denies (starts with `!`). */
export function isDenyPattern(pattern: string): boolean {
  return pattern.startsWith("!");
}

/**
 * Argo CD's project-level match: for a denial (`!p`), true when `text` does NOT match `p`;
 * otherwise true when `pattern` is `*` or the glob matches all of `text`. `separators` are the
 * characters `*` and `?` of the glob do not cross ("" for none).
 */
export function negatableMatch(pattern: string, text: string, separators = ""): boolean {
  if (isDenyPattern(pattern)) return !globMatch(pattern.slice(1), text, separators);
  if (pattern === "*") return true;
  return globMatch(pattern, text, separators);
}
