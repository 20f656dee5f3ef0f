/**
 * The Kubernetes client of a controller process, as its flags ask for it: the kubeconfig source
 * (`--kubeconfig`, else the default chain), kubectl's overrides (`--context`, `--server`, `--token`,
 * `--as` …) and the transport settings, and the controller's namespace.
 */
import type { Clock } from "../clock/index.js";
import { clientRateLimit, kubeEnvironment, namespaceFromEnv, type Config, type Env } from "../config/index.js";
import { parseRequestTimeout } from "../config/values.js";
import { processUserAgent } from "./version.js";
import {
  applyKubeOverrides,
  KubeApiClient,
  loadKubeConfig,
  LimiterPerResource,
  TokenBucket,
  type KubeApiClientOptions,
  type KubeConfigSource,
} from "../kube/index.js";

/** Where the kubeconfig comes from: `--kubeconfig`, else the default chain on `env` (the context is an override). */
export function kubeSource(config: Config, env: Env): KubeConfigSource {
  return config.kubeconfig !== "" ? { kind: "file", path: config.kubeconfig } : { kind: "default", env: kubeEnvironment(env) };
}

/** The client options kubectl's flags give (`fieldManager` aside). */
export function kubeClientOptions(config: Config): KubeApiClientOptions {
  const timeout = parseRequestTimeout(config.requestTimeout);
  return {
    overrides: {
      context: config.context,
      cluster: config.cluster,
      user: config.user,
      server: config.server,
      certificateAuthority: config.certificateAuthority,
      insecureSkipTlsVerify: config.insecureSkipTlsVerify,
      tlsServerName: config.tlsServerName,
      proxyUrl: config.proxyUrl,
      token: config.token,
      username: config.username,
      password: config.password,
      clientCertificate: config.clientCertificate,
      clientKey: config.clientKey,
    },
    impersonate: { user: config.as, groups: config.asGroup, uid: config.asUid },
    disableCompression: config.disableCompression,
    ...(timeout.ok && timeout.value > 0 ? { requestTimeoutMs: timeout.value } : {}),
  };
}

/** How {@link kubeClient} builds the process's client. */
export interface KubeClientHow {
  readonly fieldManager: string;
  readonly clock: Clock;
  readonly program: string;
  readonly observe?: KubeApiClientOptions["observe"];
  /** A user every request impersonates instead of `--as` (sync impersonation's service account). */
  readonly impersonate?: string;
}

/**
 * The process's client from the kubeconfig of `config` and `env`, writing as `fieldManager`, limited to Argo CD's QPS
 * and burst per resource on `clock`, its User-Agent naming `program` (Argo CD's name of the process), each request
 * told to `observe`.
 */
export function kubeClient(config: Config, env: Env, how: KubeClientHow): KubeApiClient {
  const { fieldManager, clock, program } = how;
  const bucket = (): TokenBucket => new TokenBucket({ ...clientRateLimit(config), clock });
  return KubeApiClient.fromConfig(kubeSource(config, env), {
    ...kubeClientOptions(config),
    ...(how.impersonate === undefined ? {} : { impersonate: { user: how.impersonate, groups: [], uid: "" } }),
    fieldManager,
    ...(how.observe === undefined ? {} : { observe: how.observe }),
    userAgent: processUserAgent(program),
    // As Argo CD's controller-runtime client: a token bucket per resource, and one more for requests
    // about none (discovery, the version).
    limiter: bucket(),
    limiters: new LimiterPerResource(bucket),
    agent: {
      connectTimeoutMs: config.k8sTcpTimeoutMs + config.k8sTlsHandshakeTimeoutMs,
      keepAliveMs: config.k8sTcpKeepaliveMs,
      idleTimeoutMs: config.k8sTcpIdleTimeoutMs,
    },
  });
}

/** The controller's namespace: `--namespace`, else the selected context's, else `$NAMESPACE`, else argocd. */
export function controllerNamespace(config: Config, env: Env): string {
  if (config.namespace !== "") return config.namespace;
  const kc = applyKubeOverrides(loadKubeConfig(kubeSource(config, env)), kubeClientOptions(config).overrides ?? {});
  return kc.getContextObject(kc.getCurrentContext())?.namespace ?? namespaceFromEnv(env) ?? "argocd";
}
