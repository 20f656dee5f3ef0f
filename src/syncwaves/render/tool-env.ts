/**
 * The environment the rendering programs (`helm`, `kustomize`) inherit from this process: an
 * allow-list, never the whole environment. This process holds credentials in its environment (SCM
 * tokens, `GITHUB_TOKEN`, cloud keys, the Kubernetes service account's settings), and a chart or a
 * kustomization is tenant input: a Kustomize exec function or a Helm plugin would see what the
 * program sees. Argo CD's repo-server passes its whole environment (`os.Environ()` in
 * util/helm/cmd.go and util/kustomize), but it is a process of its own that holds no such
 * credentials; this one renders inside the controller, so it passes only what the programs need
 * (docs/sync-engine.md#sources). The renderer adds its own variables on top (Helm's homes, the
 * repository's proxy, the `ARGOCD_APP_*` build environment). Pure.
 */

type Env = Readonly<Record<string, string | undefined>>;

/** The names passed through as they are, in either case where the programs read both. */
export const TOOL_ENV_ALLOWED: readonly string[] = [
  "PATH",
  "HOME",
  "TMPDIR",
  // Locale and time zone.
  "LANG",
  "LANGUAGE",
  "LC_ALL",
  "LC_CTYPE",
  "TZ",
  // The trust store Go programs read.
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  // Proxies: Go reads the upper case first, then the lower case.
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy",
];

/** The allowed variables of `inherited` that are set. */
export function toolBaseEnv(inherited: Env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of TOOL_ENV_ALLOWED) {
    const value = inherited[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}
