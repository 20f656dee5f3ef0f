/**
 * The SCM Provider and Pull Request generators' services as the controller process configures
 * them: the flags (`--enable-scm-providers`, `--allowed-scm-providers`, `--token-ref-strict-mode`,
 * `--scm-root-ca-path`, `--scm-proxy-url`, `--scm-no-proxy`), the `GITHUB_TOKEN`/`GITLAB_TOKEN`/
 * `GITEA_TOKEN` fallbacks, the controller's User-Agent, AWS credentials (the AWS SDK's default chain), region and endpoints
 * from the standard `AWS_*` variables, token and CA references read from the ApplicationSet's namespace, the provider-neutral
 * SCM API metrics, and GitHub API metrics when enabled.
 */
import { existsSync, readFileSync } from "node:fs";
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
import { ARGOCD_APPSET_PROGRAM, processUserAgent } from "./version.js";

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
 * The options of the AWS SDK's default credential chain (`fromNodeProviderChain`) taken from the
 * environment map, so the map decides where the SDK accepts an option: `AWS_PROFILE`,
 * `AWS_SHARED_CREDENTIALS_FILE`, `AWS_CONFIG_FILE`, `AWS_WEB_IDENTITY_TOKEN_FILE`, `AWS_ROLE_ARN`,
 * `AWS_ROLE_SESSION_NAME`, `AWS_CONTAINER_CREDENTIALS_FULL_URI` / `_RELATIVE_URI`,
 * `AWS_CONTAINER_AUTHORIZATION_TOKEN` / `_FILE`. The SDK still reads the process environment itself
 * for what it takes no option for: the static keys (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
 * `AWS_SESSION_TOKEN`, `AWS_CREDENTIAL_EXPIRATION`), whether the container endpoint is set at all,
 * and the instance metadata switches (`AWS_EC2_METADATA_DISABLED`, `AWS_EC2_METADATA_SERVICE_ENDPOINT`...).
 */
export function awsChainOptions(env: Env): Record<string, string> {
  const names = {
    profile: "AWS_PROFILE",
    filepath: "AWS_SHARED_CREDENTIALS_FILE",
    configFilepath: "AWS_CONFIG_FILE",
    webIdentityTokenFile: "AWS_WEB_IDENTITY_TOKEN_FILE",
    roleArn: "AWS_ROLE_ARN",
    roleSessionName: "AWS_ROLE_SESSION_NAME",
    awsContainerCredentialsFullUri: "AWS_CONTAINER_CREDENTIALS_FULL_URI",
    awsContainerCredentialsRelativeUri: "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
    awsContainerAuthorizationToken: "AWS_CONTAINER_AUTHORIZATION_TOKEN",
    awsContainerAuthorizationTokenFile: "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE",
  };
  return Object.fromEntries(Object.entries(names).flatMap(([opt, name]) => (env[name] ? [[opt, env[name]]] : [])));
}

/**
 * AWS settings from the environment: credentials from the AWS SDK's default chain (environment
 * keys, shared credentials and config files with profiles and SSO, web identity (EKS IRSA),
 * container credentials (ECS, EKS Pod Identity), instance metadata), `AWS_REGION` (else
 * `AWS_DEFAULT_REGION`), and endpoint overrides `AWS_ENDPOINT_URL_CODECOMMIT`,
 * `AWS_ENDPOINT_URL_RESOURCE_GROUPS_TAGGING_API`, `AWS_ENDPOINT_URL_STS` (each else
 * `AWS_ENDPOINT_URL`), as the AWS SDKs name them.
 */
export function awsSettings(env: Env): AwsSettings {
  const v = (k: string): string | undefined => (env[k] === undefined || env[k] === "" ? undefined : env[k]);
  const region = v("AWS_REGION") ?? v("AWS_DEFAULT_REGION");
  const endpoint = (service: string): string | undefined => v(`AWS_ENDPOINT_URL_${service}`) ?? v("AWS_ENDPOINT_URL");
  const endpoints = { codecommit: endpoint("CODECOMMIT"), tagging: endpoint("RESOURCE_GROUPS_TAGGING_API"), sts: endpoint("STS") };
  const chain = awsChainOptions(env);
  return {
    // The AWS SDK is loaded on first use: most installs never call AWS.
    credentials: (clientConfig) => async () =>
      (await import("@aws-sdk/credential-providers")).fromNodeProviderChain({ ...chain, clientConfig })(),
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
    userAgent: processUserAgent(ARGOCD_APPSET_PROGRAM),
    limits: { maxResponseBytes: config.scmMaxResponseBytes, maxPages: config.scmMaxPages },
    ...(config.scmProxyUrl === "" ? {} : { transport: proxyTransport({ url: config.scmProxyUrl, noProxy: config.scmNoProxy }) }),
    ...(rootCa === undefined ? {} : { rootCa }),
    ...(metrics === undefined ? {} : { observer: scmMetricsObserver(metrics, config.enableGithubApiMetrics ? metrics : undefined) }),
  });
  if (report !== undefined) report.metrics.watchScm(() => services.http(report.clock));
  return services;
}
