/**
 * The build environment of a rendered source and `$VAR` substitution in option values, as Argo CD
 * substitutes Helm parameters, value file paths and Kustomize images and labels: `$NAME` and
 * `${NAME}` become the variable's value or "" when it is not one of the build variables, `$$`
 * is a literal `$`. Pure.
 */

/** One build variable. */
export interface EnvEntry {
  readonly name: string;
  readonly value: string;
}

/** What the build environment is made from. */
export interface BuildEnvInput {
  readonly appName: string;
  readonly namespace: string;
  readonly project: string;
  readonly revision: string;
  readonly repoURL: string;
  readonly path: string;
  readonly targetRevision: string;
}

/** Argo CD's `ARGOCD_APP_*` variables, in its order. */
export function buildEnv(i: BuildEnvInput): EnvEntry[] {
  return [
    { name: "ARGOCD_APP_NAME", value: i.appName },
    { name: "ARGOCD_APP_NAMESPACE", value: i.namespace },
    { name: "ARGOCD_APP_PROJECT_NAME", value: i.project },
    { name: "ARGOCD_APP_REVISION", value: i.revision },
    { name: "ARGOCD_APP_REVISION_SHORT", value: i.revision.slice(0, 7) },
    { name: "ARGOCD_APP_REVISION_SHORT_8", value: i.revision.slice(0, 8) },
    { name: "ARGOCD_APP_SOURCE_REPO_URL", value: i.repoURL },
    { name: "ARGOCD_APP_SOURCE_PATH", value: i.path },
    { name: "ARGOCD_APP_SOURCE_TARGET_REVISION", value: i.targetRevision },
  ];
}

const isNameChar = (c: string): boolean => /[A-Za-z0-9_]/.test(c);
/** Go's one-character special names: `$*`, `$#`, `$$`, `$@`, `$!`, `$?`, `$-` and digits. */
const isSpecial = (c: string): boolean => /[*#$@!?\-0-9]/.test(c);

/** A `{NAME}` at `s[i]`: [name, length consumed]; ["", n] eats bad syntax. */
function readBraced(s: string, i: number): [string, number] {
  const first = s[i + 1] ?? "";
  if (isSpecial(first) && s[i + 2] === "}") return [first, 3];
  const end = s.indexOf("}", i + 1);
  if (end < 0) return ["", 1];
  if (end === i + 1) return ["", 2];
  return [s.slice(i + 1, end), end - i + 1];
}

/** The variable name after a `$` at `s[i]`: [name, length consumed], as Go's os.Expand reads it. */
function readName(s: string, i: number): [string, number] {
  const c = s[i] ?? "";
  if (c === "{") return readBraced(s, i);
  if (isSpecial(c)) return [c, 1];
  let j = i;
  while (j < s.length && isNameChar(s[j] ?? "")) j++;
  return [s.slice(i, j), j - i];
}

/** `s` with `$NAME`, `${NAME}` expanded from `env` (unknown: ""), `$$` kept as `$`. */
export function envsubst(s: string, env: readonly EnvEntry[]): string {
  const values = new Map(env.map((e) => [e.name, e.value]));
  let out = "";
  let i = 0;
  while (i < s.length) {
    const c = s[i] ?? "";
    if (c !== "$" || i + 1 >= s.length) {
      out += c;
      i++;
      continue;
    }
    const [name, width] = readName(s, i + 1);
    if (name === "" && width > 0) {
      // A bad `${...` is dropped whole; a `$` before a character that names nothing is dropped.
      i += 1 + width;
      continue;
    }
    if (name === "" && width === 0) {
      out += c;
      i++;
      continue;
    }
    out += name === "$" ? "$" : (values.get(name) ?? "");
    i += 1 + width;
  }
  return out;
}
