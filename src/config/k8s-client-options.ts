/**
 * Argo CD's settings of the Kubernetes REST client (its `util/env` variables read by the
 * ApplicationSet controller, and the `applicationsetcontroller.k8s.*` keys its manifests map to
 * them): the client-side rate limit and the transport's timeouts. Environment only. Data only.
 */
import { argo, CM, MAX_INT32, type OptionDef } from "./option-def.js";

const K8S = `${CM}k8s.`;
const DEFAULT_QPS = 50;

/** client-go's rate limit of a REST config whose QPS or burst is 0 (`rest.DefaultQPS`, `rest.DefaultBurst`). */
export const CLIENT_GO_DEFAULT_QPS = 5;
export const CLIENT_GO_DEFAULT_BURST = 10;

/**
 * The rate limit the client applies, as client-go reads a REST config: a QPS of 0 means 5 and a
 * burst of 0 means 10, each on its own (so `ARGOCD_K8S_CLIENT_QPS=0` is 5 QPS with a burst of 10,
 * never no limit).
 */
export function clientRateLimit(config: { readonly k8sClientQps: number; readonly k8sClientBurst: number }): {
  qps: number;
  burst: number;
} {
  return {
    qps: config.k8sClientQps === 0 ? CLIENT_GO_DEFAULT_QPS : config.k8sClientQps,
    burst: config.k8sClientBurst === 0 ? CLIENT_GO_DEFAULT_BURST : config.k8sClientBurst,
  };
}

/** `2 × ARGOCD_K8S_CLIENT_QPS`, as Argo CD computes the burst's default. */
function defaultBurst(env: Readonly<Record<string, string | undefined>>): number {
  const qps = Number(env["ARGOCD_K8S_CLIENT_QPS"] ?? "");
  return Math.trunc(2 * (env["ARGOCD_K8S_CLIENT_QPS"] !== undefined && Number.isFinite(qps) && qps >= 0 ? qps : DEFAULT_QPS));
}

/** A duration setting; `name` is the key after `applicationsetcontroller.k8s.`. */
const duration = (key: string, env: string, d: { name: string; ms: number; description: string }): OptionDef =>
  argo({ key, env, cmKey: `${K8S}${d.name}`, kind: "duration", default: d.ms, min: 0, max: 24 * 3_600_000, description: d.description });

export const K8S_CLIENT_OPTIONS: readonly OptionDef[] = [
  argo({
    key: "k8sClientQps",
    env: "ARGOCD_K8S_CLIENT_QPS",
    cmKey: `${K8S}client.qps`,
    kind: "float",
    default: DEFAULT_QPS,
    min: 0,
    max: 3.4e38,
    description:
      "Requests a second the Kubernetes client sends at most about each resource kind, as client-go's token bucket refills (0: client-go's default, 5).",
  }),
  argo({
    key: "k8sClientBurst",
    env: "ARGOCD_K8S_CLIENT_BURST",
    cmKey: `${K8S}client.burst`,
    kind: "int",
    default: defaultBurst,
    defaultText: "2 × ARGOCD_K8S_CLIENT_QPS (100)",
    min: 0,
    max: MAX_INT32,
    description:
      "Requests the Kubernetes client may send at once above its QPS (the token bucket's size; 0: client-go's default, 10). A watch counts once, when it opens.",
  }),
  argo({
    key: "k8sClientMaxIdleConnections",
    env: "ARGOCD_K8S_CLIENT_MAX_IDLE_CONNECTIONS",
    cmKey: `${K8S}client.max.idle.connections`,
    kind: "int",
    default: 500,
    min: 0,
    max: MAX_INT32,
    description: "Accepted for compatibility: the client keeps one pooled connection (HTTP/2 multiplexed) and one per watch.",
  }),
  duration("k8sTcpTimeoutMs", "ARGOCD_K8S_TCP_TIMEOUT", {
    name: "tcp.timeout",
    ms: 30_000,
    description: "Longest wait for a TCP connection to the apiserver.",
  }),
  duration("k8sTcpKeepaliveMs", "ARGOCD_K8S_TCP_KEEPALIVE", {
    name: "tcp.keepalive",
    ms: 30_000,
    description: "TCP keep-alive interval of apiserver connections.",
  }),
  duration("k8sTlsHandshakeTimeoutMs", "ARGOCD_K8S_TLS_HANDSHAKE_TIMEOUT", {
    name: "tls.handshake.timeout",
    ms: 10_000,
    description: "Longest wait for the TLS handshake with the apiserver (added to the TCP timeout: the connection is timed as one).",
  }),
  duration("k8sTcpIdleTimeoutMs", "ARGOCD_K8S_TCP_IDLE_TIMEOUT", {
    name: "tcp.idle.timeout",
    ms: 300_000,
    description: "How long an idle apiserver connection is kept open.",
  }),
];
