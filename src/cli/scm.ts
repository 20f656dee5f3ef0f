/**
 * The SCM Provider and Pull Request generators' services as the controller process configures
 * them: the flags (`--enable-scm-providers`, `--allowed-scm-providers`, `--token-ref-strict-mode`,
 * `--scm-root-ca-path`, `--scm-proxy-url`, `--scm-no-proxy`), the `GITHUB_TOKEN`/`GITLAB_TOKEN`/
 * `GITEA_TOKEN` fallbacks, AWS credentials, region and endpoints from the standard `AWS_*`
 * variables, token and CA references read from the ApplicationSet's namespace, the provider-neutral
 * SCM API metrics, and GitHub API metrics when enabled.
 */
import { existsSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { parseSecret } from "../api/index.js";
import type { Config, Env } from "../config/index.js";
import { ignoreNotFound, type KubeReader } from "../kube/index.js";
import type { Clock } from "../clock/index.js";
import type { ScmApiFigures } from "../metrics/index.js";
import {
  proxyTransport,
  scmMetricsObserver,
  ScmServices,
  type AwsSettings,
  type GithubMetricsSink,
  type NamespacedObjects,
  type ScmRequestSink,
} from "../scm/index.js";

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

/**
 * AWS settings from the environment: `AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY` /
 * `AWS_SESSION_TOKEN`, else a web identity (`AWS_ROLE_ARN`, `AWS_WEB_IDENTITY_TOKEN_FILE`,
 * `AWS_ROLE_SESSION_NAME`; EKS IRSA), `AWS_REGION` (else `AWS_DEFAULT_REGION`), and endpoint overrides
 * `AWS_ENDPOINT_URL_CODECOMMIT`, `AWS_ENDPOINT_URL_RESOURCE_GROUPS_TAGGING_API`, `AWS_ENDPOINT_URL_STS`
 * (each else `AWS_ENDPOINT_URL`), as the AWS SDKs name them.
 */
export function awsSettings(env: Env): AwsSettings {
  const v = (k: string): string | undefined => (env[k] === undefined || env[k] === "" ? undefined : env[k]);
  const [id, secret, token] = [v("AWS_ACCESS_KEY_ID"), v("AWS_SECRET_ACCESS_KEY"), v("AWS_SESSION_TOKEN")];
  const region = v("AWS_REGION") ?? v("AWS_DEFAULT_REGION");
  const endpoint = (service: string): string | undefined => v(`AWS_ENDPOINT_URL_${service}`) ?? v("AWS_ENDPOINT_URL");
  const endpoints = { codecommit: endpoint("CODECOMMIT"), tagging: endpoint("RESOURCE_GROUPS_TAGGING_API"), sts: endpoint("STS") };
  const [roleArn, tokenFile, sessionName] = [v("AWS_ROLE_ARN"), v("AWS_WEB_IDENTITY_TOKEN_FILE"), v("AWS_ROLE_SESSION_NAME")];
  const webIdentity =
    roleArn === undefined || tokenFile === undefined
      ? undefined
      : { roleArn, token: () => readFile(tokenFile, "utf8"), ...(sessionName === undefined ? {} : { sessionName }) };
  return {
    ...(id !== undefined && secret !== undefined
      ? { credentials: { accessKeyId: id, secretAccessKey: secret, ...(token === undefined ? {} : { sessionToken: token }) } }
      : {}),
    ...(webIdentity === undefined ? {} : { webIdentity }),
    ...(region === undefined ? {} : { region }),
    endpoints: Object.fromEntries(Object.entries(endpoints).filter(([, e]) => e !== undefined)),
  };
}

/** Where the SCM services report (AppSetMetrics satisfies it). */
export interface ScmMetricsPort extends GithubMetricsSink, ScmRequestSink {
  /** Reads the rate-limit figures from `source` at each scrape. */
  watchScm(source: () => ScmApiFigures | undefined): void;
}

/**
 * Builds the SCM services from the configuration; `report.metrics` receives every provider's
 * figures, read at scrape time from the client made with `report.clock`.
 */
export function scmServices(config: Config, env: Env, reader: KubeReader, report?: { metrics: ScmMetricsPort; clock: Clock }): ScmServices {
  const metrics = report?.metrics;
  const envTokens = {
    ...(env["GITHUB_TOKEN"] ? { github: env["GITHUB_TOKEN"] } : {}),
    ...(env["GITLAB_TOKEN"] ? { gitlab: env["GITLAB_TOKEN"] } : {}),
    ...(env["GITEA_TOKEN"] ? { gitea: env["GITEA_TOKEN"] } : {}),
  };
  const rootCa = config.scmRootCaPath !== "" && existsSync(config.scmRootCaPath) ? readFileSync(config.scmRootCaPath, "utf8") : undefined;
  const services = new ScmServices({
    settings: {
      enabled: config.enableScmProviders,
      allowedProviders: config.allowedScmProviders,
      tokenRefStrictMode: config.tokenRefStrictMode,
      envTokens,
      aws: awsSettings(env),
    },
    objects: namespacedObjects(reader),
    ...(config.scmProxyUrl === "" ? {} : { transport: proxyTransport({ url: config.scmProxyUrl, noProxy: config.scmNoProxy }) }),
    ...(rootCa === undefined ? {} : { rootCa }),
    ...(metrics === undefined ? {} : { observer: scmMetricsObserver(metrics, config.enableGithubApiMetrics ? metrics : undefined) }),
  });
  if (report !== undefined) report.metrics.watchScm(() => services.http(report.clock));
  return services;
}
