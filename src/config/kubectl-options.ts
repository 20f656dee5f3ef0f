/**
 * kubectl's client flags (client-go's clientcmd overrides) as Argo CD's ApplicationSet controller
 * registers them, with the same names and texts; they override the kubeconfig the controller loads
 * (docs/configuration.md#kubernetes-client). Data only.
 */
import type { Def, OptionDef } from "./option-def.js";

const kubectl = (d: Def): OptionDef => ({ ...d, origin: "kubectl" });
const text = (key: string, flag: string, description: string): OptionDef =>
  kubectl({ key, flag, kind: "string", default: "", description });
const bool = (key: string, flag: string, description: string): OptionDef =>
  kubectl({ key, flag, kind: "bool", default: false, description });

/** kubectl's client flags, in the order of Argo CD's help. */
export const KUBECTL_OPTIONS: readonly OptionDef[] = [
  text("as", "as", "Username to impersonate for the operation."),
  kubectl({
    key: "asGroup",
    flag: "as-group",
    kind: "array",
    default: [],
    description: "Group to impersonate for the operation, this flag can be repeated to specify multiple groups.",
  }),
  text("asUid", "as-uid", "UID to impersonate for the operation."),
  text("certificateAuthority", "certificate-authority", "Path to a cert file for the certificate authority."),
  text("clientCertificate", "client-certificate", "Path to a client certificate file for TLS."),
  text("clientKey", "client-key", "Path to a client key file for TLS."),
  text("cluster", "cluster", "The name of the kubeconfig cluster to use."),
  text("context", "context", "The name of the kubeconfig context to use."),
  bool("disableCompression", "disable-compression", "If true, opt-out of response compression for all requests to the server."),
  bool(
    "insecureSkipTlsVerify",
    "insecure-skip-tls-verify",
    "If true, the server's certificate will not be checked for validity. This will make your HTTPS connections insecure.",
  ),
  kubectl({
    key: "kubeconfig",
    flag: "kubeconfig",
    env: "KUBECONFIG",
    kind: "string",
    default: "",
    description: "Path to a kubeconfig file (default: in-cluster, then ~/.kube/config).",
  }),
  text("namespace", "namespace", "The controller's namespace (default: from the kubeconfig or the service account)."),
  text("password", "password", "Password for basic authentication to the API server."),
  text("proxyUrl", "proxy-url", "If provided, this URL will be used to connect via proxy."),
  kubectl({
    key: "requestTimeout",
    flag: "request-timeout",
    kind: "string",
    default: "0",
    description:
      "The length of time to wait before giving up on a single server request (an integer in seconds, or with a unit: 1s, 2m, 3h). Zero keeps the controller's own 60 s bound; watches are not bounded.",
  }),
  text("server", "server", "The address and port of the Kubernetes API server."),
  text(
    "tlsServerName",
    "tls-server-name",
    "If provided, this name will be used to validate server certificate. If this is not provided, hostname used to contact the server is used.",
  ),
  text("token", "token", "Bearer token for authentication to the API server."),
  text("user", "user", "The name of the kubeconfig user to use."),
  text("username", "username", "Username for basic authentication to the API server."),
];
