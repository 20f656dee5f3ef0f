/**
 * Paths a rendered source names (Helm value files, `--set-file` files), resolved within the
 * repository as Argo CD's repo server resolves them: relative to the source's path, or to the
 * repository root when absolute; never outside the repository; a URL passes through when its
 * scheme is allowed; a glob (`*`, `?`, `[`) expands to the matching files in path order. Pure:
 * the repository is its list of file paths.
 */
import { posix } from "node:path";
import { AppSetError } from "../../errors.js";
import { MANIFEST_ERROR, sourceGlob } from "../manifests.js";

/** Helm's default `helm.valuesFileSchemes` in argocd-cm. */
export const DEFAULT_VALUE_FILE_SCHEMES: readonly string[] = ["https", "http"];

/** A resolved path: a file of the repository (relative to its root) or a URL. */
export type RepoPath = { readonly file: string } | { readonly url: string };

/** The URL scheme of `s` when it parses as a URL with one, as Go's url.Parse sees it. */
function urlScheme(s: string): string | undefined {
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(s);
  return m?.[1];
}

/** Resolves `name` against the source path `appPath` (relative to the repository root). */
export function resolveRepoPath(appPath: string, name: string, schemes: readonly string[] = DEFAULT_VALUE_FILE_SCHEMES): RepoPath {
  const scheme = urlScheme(name);
  if (scheme !== undefined) {
    if (schemes.some((s) => s.toLowerCase() === scheme.toLowerCase())) return { url: name };
    throw new AppSetError(MANIFEST_ERROR, `the URL scheme '${scheme}' is not allowed`);
  }
  const joined = posix.normalize(name.startsWith("/") ? `.${name}` : posix.join(appPath === "" ? "." : appPath, name));
  if (joined === "." || joined === "./") {
    throw new AppSetError(MANIFEST_ERROR, "internal error: failed to resolve path. Check logs for more details");
  }
  if (joined === ".." || joined.startsWith("../"))
    throw new AppSetError(MANIFEST_ERROR, `file '${name}' resolved to outside repository root`);
  return { file: joined.replace(/\/$/, "") };
}

/** True when a path is a glob pattern. */
export const isGlob = (p: string): boolean => /[*?[]/.test(p);

/** The repository files a glob matches, in path order (`**` crosses directories). */
export function expandGlob(pattern: string, files: readonly string[]): string[] {
  const matches = sourceGlob(pattern, { dot: true });
  return files.filter(matches).sort();
}
