/**
 * The SCM Provider and Pull Request generators' services as the controller process configures
 * them: the flags (`--enable-scm-providers`, `--allowed-scm-providers`, `--token-ref-strict-mode`,
 * `--scm-root-ca-path`, `--scm-proxy-url`, `--scm-no-proxy`), the `GITHUB_TOKEN`/`GITLAB_TOKEN`/
 * `GITEA_TOKEN` fallbacks, the controller's User-Agent, AWS credentials (the AWS SDK's default chain), region and endpoints
 * from the standard `AWS_*` variables (those variables read in src/config/environment.ts), token and CA references read
 * from the ApplicationSet's namespace, the provider-neutral SCM API metrics, and GitHub API metrics when enabled.
 */
import { existsSync, readFileSync } from "node:fs";
import { parseSecret } from "../api/index.js";
import { awsChainOptions, awsRegionAndEndpoints, scmEnvTokens, type Config, type Env } from "../config/index.js";
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
 * AWS settings from the environment: credentials from the AWS SDK's default chain (environment
 * keys, shared credentials and config files with profiles and SSO, web identity (EKS IRSA),
 * container credentials (ECS, EKS Pod Identity), instance metadata) with the options of
 * `awsChainOptions`, and the region and endpoint overrides of `awsRegionAndEndpoints` (both in
 * src/config/environment.ts).
 */
export function awsSettings(env: Env): AwsSettings {
  const chain = awsChainOptions(env);
  return {
    // The AWS SDK is loaded on first use: most installs never call AWS.
    credentials: (clientConfig) => async () =>
      (await import("@aws-sdk/credential-providers")).fromNodeProviderChain({ ...chain, clientConfig })(),
    ...awsRegionAndEndpoints(env),
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
  const rootCa = config.scmRootCaPath !== "" && existsSync(config.scmRootCaPath) ? readFileSync(config.scmRootCaPath, "utf8") : undefined;
  const services = new ScmServices({
    settings: {
      enabled: config.enableScmProviders,
      allowedProviders: config.allowedScmProviders,
      tokenRefStrictMode: config.tokenRefStrictMode,
      envTokens: scmEnvTokens(env),
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
