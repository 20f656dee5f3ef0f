/**
 * The SCM Provider and Pull Request generators' services as the controller process configures
 * them: the flags (`--enable-scm-providers`, `--allowed-scm-providers`, `--token-ref-strict-mode`,
 * `--scm-root-ca-path`), the `GITHUB_TOKEN`/`GITLAB_TOKEN`/`GITEA_TOKEN` fallbacks, token and CA
 * references read from the ApplicationSet's namespace, and GitHub API metrics when enabled.
 */
import { existsSync, readFileSync } from "node:fs";
import { parseSecret } from "../api/index.js";
import type { Config, Env } from "../config/index.js";
import { ignoreNotFound, type KubeReader } from "../kube/index.js";
import { githubMetricsObserver, ScmServices, type GithubMetricsSink, type NamespacedObjects } from "../scm/index.js";

const SECRET = { group: "", version: "v1", plural: "secrets", kind: "Secret", namespaced: true } as const;
const CONFIGMAP = { group: "", version: "v1", plural: "configmaps", kind: "ConfigMap", namespaced: true } as const;

/** Secrets and ConfigMaps of any namespace, read through the API (NotFound → undefined). */
export function namespacedObjects(reader: KubeReader): NamespacedObjects {
  return {
    async getSecret(namespace, name) {
      const obj = await ignoreNotFound(reader.get(SECRET, { namespace, name }));
      if (obj === undefined) return undefined;
      const res = parseSecret(obj);
      if (!res.ok) throw res.error;
      return res.value;
    },
    async getConfigMapData(namespace, name) {
      const obj = await ignoreNotFound(reader.get(CONFIGMAP, { namespace, name }));
      const data = obj?.["data"];
      return obj === undefined ? undefined : ((data ?? {}) as Record<string, string>);
    },
  };
}

/** Builds the SCM services from the configuration. */
export function scmServices(config: Config, env: Env, reader: KubeReader, metrics?: GithubMetricsSink): ScmServices {
  const envTokens = {
    ...(env["GITHUB_TOKEN"] ? { github: env["GITHUB_TOKEN"] } : {}),
    ...(env["GITLAB_TOKEN"] ? { gitlab: env["GITLAB_TOKEN"] } : {}),
    ...(env["GITEA_TOKEN"] ? { gitea: env["GITEA_TOKEN"] } : {}),
  };
  const rootCa = config.scmRootCaPath !== "" && existsSync(config.scmRootCaPath) ? readFileSync(config.scmRootCaPath, "utf8") : undefined;
  return new ScmServices({
    settings: {
      enabled: config.enableScmProviders,
      allowedProviders: config.allowedScmProviders,
      tokenRefStrictMode: config.tokenRefStrictMode,
      envTokens,
    },
    objects: namespacedObjects(reader),
    ...(rootCa === undefined ? {} : { rootCa }),
    ...(metrics !== undefined && config.enableGithubApiMetrics ? { observer: githubMetricsObserver(metrics) } : {}),
  });
}
