/**
 * The table of every controller setting: its flag, its environment variable and its
 * `argocd-cmd-params-cm` key exactly as Argo CD names them (docs/configuration.md#reference), its
 * default and its range. Argo CD's Deployment maps each ConfigMap key to the environment variable
 * through `valueFrom.configMapKeyRef` (optional), so the process itself reads only flags and
 * environment. Data only: the parsing is in `config.ts`.
 */

/** How a setting's text is read. */
export type OptionKind = "bool" | "int" | "string" | "list" | "duration";

/** A setting's value: durations are milliseconds. */
export type OptionValue = boolean | number | string | readonly string[];

/** Where a setting comes from. */
export type OptionOrigin = "argo-cd" | "kubectl" | "appset";

/** One setting. */
export interface OptionDef {
  /** Field of the Config object. */
  readonly key: string;
  /** Flag name without the leading `--`; absent for environment-only settings. */
  readonly flag?: string;
  /** Environment variable read for the default. */
  readonly env?: string;
  /** `argocd-cmd-params-cm` key that Argo CD's Deployment maps to {@link env}. */
  readonly cmKey?: string;
  readonly kind: OptionKind;
  /** The default, or how it is computed from the environment. */
  readonly default: OptionValue | ((env: Readonly<Record<string, string | undefined>>) => OptionValue);
  /** How a computed default reads in the reference. */
  readonly defaultText?: string;
  /** Inclusive bounds of an int (or of a duration, in ms). */
  readonly min?: number;
  readonly max?: number;
  /** Allowed values of a string setting. */
  readonly values?: readonly string[];
  readonly description: string;
  /** Set when the flag is deprecated: what to use instead. */
  readonly deprecated?: string;
  readonly origin: OptionOrigin;
}

const ACS = "ARGOCD_APPLICATIONSET_CONTROLLER_";
const CM = "applicationsetcontroller.";
const MAX_INT32 = 2_147_483_647;
const HOUR_MS = 3_600_000;

/** The policies `--policy` accepts ("" means sync). */
export const POLICIES = ["", "sync", "create-only", "create-update", "create-delete"] as const;

type Def = Omit<OptionDef, "origin">;
const argo = (d: Def): OptionDef => ({ ...d, origin: "argo-cd" });

/** Argo CD's own settings, in the order of its flag list, then the settings it reads from the environment only. */
const ARGO_OPTIONS: readonly OptionDef[] = [
  argo({
    key: "metricsAddr",
    flag: "metrics-addr",
    kind: "string",
    default: ":8080",
    description: "The address the metric endpoint binds to.",
  }),
  argo({ key: "probeAddr", flag: "probe-addr", kind: "string", default: ":8081", description: "The address the probe endpoint binds to." }),
  argo({
    key: "webhookAddr",
    flag: "webhook-addr",
    kind: "string",
    default: ":7000",
    description: "The address the webhook endpoint binds to.",
  }),
  argo({
    key: "enableLeaderElection",
    flag: "enable-leader-election",
    env: `${ACS}ENABLE_LEADER_ELECTION`,
    cmKey: `${CM}enable.leader.election`,
    kind: "bool",
    default: false,
    description: "Enable leader election for the controller; only the leader reconciles.",
  }),
  argo({
    key: "applicationSetNamespaces",
    flag: "applicationset-namespaces",
    env: `${ACS}NAMESPACES`,
    cmKey: `${CM}namespaces`,
    kind: "list",
    default: [],
    description: "Namespaces (globs or /regex/) where ApplicationSets are reconciled, besides the controller's own.",
  }),
  argo({
    key: "argocdRepoServer",
    flag: "argocd-repo-server",
    env: `${ACS}REPO_SERVER`,
    cmKey: "repo.server",
    kind: "string",
    default: "argocd-repo-server:8081",
    description: "Argo CD repo server address (accepted for compatibility).",
  }),
  argo({
    key: "policy",
    flag: "policy",
    env: `${ACS}POLICY`,
    cmKey: `${CM}policy`,
    kind: "string",
    default: "",
    values: POLICIES,
    description: "How Applications are synced from ApplicationSets: sync, create-only, create-update or create-delete (empty means sync).",
  }),
  argo({
    key: "enablePolicyOverride",
    flag: "enable-policy-override",
    env: `${ACS}ENABLE_POLICY_OVERRIDE`,
    cmKey: `${CM}enable.policy.override`,
    kind: "bool",
    default: (env) => (env[`${ACS}POLICY`] ?? "") === "",
    defaultText: `true unless ${ACS}POLICY is set`,
    description:
      "Let an ApplicationSet's syncPolicy.applicationsSync override --policy (default: true unless the policy environment variable is set).",
  }),
  argo({
    key: "debug",
    flag: "debug",
    env: `${ACS}DEBUG`,
    cmKey: `${CM}debug`,
    kind: "bool",
    default: false,
    description: "Print debug logs (overrides --loglevel).",
  }),
  argo({
    key: "logFormat",
    flag: "logformat",
    env: `${ACS}LOGFORMAT`,
    cmKey: `${CM}log.format`,
    kind: "string",
    default: "json",
    values: ["json", "text"],
    description: "Log format: json or text.",
  }),
  argo({
    key: "logLevel",
    flag: "loglevel",
    env: `${ACS}LOGLEVEL`,
    cmKey: `${CM}log.level`,
    kind: "string",
    default: "info",
    values: ["debug", "info", "warn", "error"],
    description: "Log level: debug, info, warn or error.",
  }),
  argo({
    key: "allowedScmProviders",
    flag: "allowed-scm-providers",
    env: `${ACS}ALLOWED_SCM_PROVIDERS`,
    cmKey: `${CM}allowed.scm.providers`,
    kind: "list",
    default: [],
    description: "SCM provider URLs ApplicationSets may use (empty: all).",
  }),
  argo({
    key: "enableScmProviders",
    flag: "enable-scm-providers",
    env: `${ACS}ENABLE_SCM_PROVIDERS`,
    cmKey: `${CM}enable.scm.providers`,
    kind: "bool",
    default: true,
    description: "Enable the SCM Provider and Pull Request generators.",
  }),
  argo({
    key: "dryRun",
    flag: "dry-run",
    env: `${ACS}DRY_RUN`,
    cmKey: `${CM}dryrun`,
    kind: "bool",
    default: false,
    description: "Send every write with server-side dry run: nothing is persisted.",
  }),
  argo({
    key: "tokenRefStrictMode",
    flag: "token-ref-strict-mode",
    env: `${ACS}TOKENREF_STRICT_MODE`,
    cmKey: `${CM}enable.tokenref.strict.mode`,
    kind: "bool",
    default: false,
    description: "Only read tokenRef Secrets labelled app.kubernetes.io/part-of: argocd.",
  }),
  argo({
    key: "enableProgressiveSyncs",
    flag: "enable-progressive-syncs",
    env: `${ACS}ENABLE_PROGRESSIVE_SYNCS`,
    cmKey: `${CM}enable.progressive.syncs`,
    kind: "bool",
    default: false,
    description: "Enable Progressive Syncs (the RollingSync strategy).",
  }),
  argo({
    key: "enableNewGitFileGlobbing",
    flag: "enable-new-git-file-globbing",
    env: `${ACS}ENABLE_NEW_GIT_FILE_GLOBBING`,
    cmKey: `${CM}enable.new.git.file.globbing`,
    kind: "bool",
    default: false,
    description: "Use the new globbing of the Git files generator (`*` does not cross directories).",
  }),
  argo({
    key: "repoServerPlaintext",
    flag: "repo-server-plaintext",
    env: `${ACS}REPO_SERVER_PLAINTEXT`,
    cmKey: `${CM}repo.server.plaintext`,
    kind: "bool",
    default: false,
    description: "Disable TLS to the repo server (accepted for compatibility).",
  }),
  argo({
    key: "repoServerStrictTls",
    flag: "repo-server-strict-tls",
    env: `${ACS}REPO_SERVER_STRICT_TLS`,
    cmKey: `${CM}repo.server.strict.tls`,
    kind: "bool",
    default: false,
    deprecated: "use --repo-server-ca-cert-path instead",
    description: "Verify the repo server's TLS certificate (accepted for compatibility).",
  }),
  argo({
    key: "repoServerTimeoutSeconds",
    flag: "repo-server-timeout-seconds",
    env: `${ACS}REPO_SERVER_TIMEOUT_SECONDS`,
    cmKey: `${CM}repo.server.timeout.seconds`,
    kind: "int",
    default: 60,
    min: 0,
    max: MAX_INT32,
    description:
      "Time limit in seconds of every git command and of the wait for a Git cache repository's lock, as Argo CD limits one repo server call (0: none).",
  }),
  argo({
    key: "repoServerCaCertPath",
    flag: "repo-server-ca-cert-path",
    env: `${ACS}REPO_SERVER_CA_CERT_PATH`,
    cmKey: `${CM}repo.server.ca.cert.path`,
    kind: "string",
    default: "",
    description: "CA certificate of the repo server (accepted for compatibility).",
  }),
  argo({
    key: "repoServerClientCertPath",
    flag: "repo-server-client-cert-path",
    env: `${ACS}REPO_SERVER_CLIENT_CERT_PATH`,
    cmKey: `${CM}repo.server.client.cert.path`,
    kind: "string",
    default: "/app/config/reposerver/mtls/client.crt",
    description: "mTLS client certificate for the repo server (accepted for compatibility).",
  }),
  argo({
    key: "repoServerClientCertKeyPath",
    flag: "repo-server-client-cert-key-path",
    env: `${ACS}REPO_SERVER_CLIENT_CERT_KEY_PATH`,
    cmKey: `${CM}repo.server.client.cert.key.path`,
    kind: "string",
    default: "/app/config/reposerver/mtls/client.key",
    description: "mTLS client key for the repo server (accepted for compatibility).",
  }),
  argo({
    key: "concurrentReconciliations",
    flag: "concurrent-reconciliations",
    env: `${ACS}CONCURRENT_RECONCILIATIONS`,
    cmKey: `${CM}concurrent.reconciliations.max`,
    kind: "int",
    default: 10,
    min: 1,
    max: MAX_INT32,
    description: "How many ApplicationSets are reconciled at once.",
  }),
  argo({
    key: "scmRootCaPath",
    flag: "scm-root-ca-path",
    env: `${ACS}SCM_ROOT_CA_PATH`,
    cmKey: `${CM}scm.root.ca.path`,
    kind: "string",
    default: "",
    description: "PEM file of extra root CAs for SCM providers.",
  }),
  argo({
    key: "scmProxyUrl",
    flag: "scm-proxy-url",
    env: `${ACS}SCM_PROXY_URL`,
    kind: "string",
    default: "",
    description: "HTTP proxy for SCM provider requests.",
  }),
  argo({
    key: "scmNoProxy",
    flag: "scm-no-proxy",
    env: `${ACS}SCM_NO_PROXY`,
    kind: "string",
    default: "",
    description: "Hosts that bypass --scm-proxy-url.",
  }),
  argo({
    key: "preservedAnnotations",
    flag: "preserved-annotations",
    env: `${ACS}GLOBAL_PRESERVED_ANNOTATIONS`,
    cmKey: `${CM}global.preserved.annotations`,
    kind: "list",
    default: [],
    description: "Application annotations the controller never overwrites, for every ApplicationSet.",
  }),
  argo({
    key: "preservedLabels",
    flag: "preserved-labels",
    env: `${ACS}GLOBAL_PRESERVED_LABELS`,
    cmKey: `${CM}global.preserved.labels`,
    kind: "list",
    default: [],
    description: "Application labels the controller never overwrites, for every ApplicationSet.",
  }),
  argo({
    key: "webhookParallelismLimit",
    flag: "webhook-parallelism-limit",
    env: `${ACS}WEBHOOK_PARALLELISM_LIMIT`,
    cmKey: `${CM}webhook.parallelism.limit`,
    kind: "int",
    default: 50,
    min: 1,
    max: 1000,
    description: "How many webhook events are processed at once.",
  }),
  argo({
    key: "metricsApplicationSetLabels",
    flag: "metrics-applicationset-labels",
    kind: "list",
    default: [],
    description: "ApplicationSet labels exported as labels of argocd_appset_labels.",
  }),
  argo({
    key: "enableGithubApiMetrics",
    flag: "enable-github-api-metrics",
    env: `${ACS}ENABLE_GITHUB_API_METRICS`,
    cmKey: `${CM}enable.github.api.metrics`,
    kind: "bool",
    default: false,
    description: "Export metrics of GitHub API requests.",
  }),
  argo({
    key: "maxResourcesStatusCount",
    flag: "max-resources-status-count",
    env: `${ACS}MAX_RESOURCES_STATUS_COUNT`,
    cmKey: `${CM}status.max.resources.count`,
    kind: "int",
    default: 5000,
    min: 0,
    max: MAX_INT32,
    description: "Most entries written to status.resources (0: unlimited).",
  }),
  argo({
    key: "cacheSyncPeriodMs",
    flag: "cache-sync-period",
    env: `${ACS}CACHE_SYNC_PERIOD`,
    kind: "duration",
    default: 10 * HOUR_MS,
    min: 0,
    max: 24 * HOUR_MS,
    description: "Period of the informers' full resync (0 disables it).",
  }),
  argo({
    key: "concurrentApplicationUpdates",
    flag: "concurrent-application-updates",
    env: `${ACS}CONCURRENT_APPLICATION_UPDATES`,
    kind: "int",
    default: 1,
    min: 1,
    max: 200,
    description: "How many Applications of one ApplicationSet are created, updated or deleted at once.",
  }),
  argo({
    key: "requeueAfterMs",
    env: `${ACS}REQUEUE_AFTER`,
    cmKey: `${CM}requeue.after`,
    kind: "duration",
    default: 3 * 60_000,
    min: 1_000,
    max: 8_760 * HOUR_MS,
    description: "Default requeue interval of the Git and cluster-decision-resource generators.",
  }),
];

/** kubectl's client flags that select the cluster (the other kubectl client flags are not accepted). */
const KUBECTL_OPTIONS: readonly OptionDef[] = [
  {
    key: "kubeconfig",
    flag: "kubeconfig",
    env: "KUBECONFIG",
    kind: "string",
    default: "",
    description: "Path to a kubeconfig file (default: in-cluster, then ~/.kube/config).",
    origin: "kubectl",
  },
  { key: "context", flag: "context", kind: "string", default: "", description: "The kubeconfig context to use.", origin: "kubectl" },
  {
    key: "namespace",
    flag: "namespace",
    kind: "string",
    default: "",
    description: "The controller's namespace (default: from the kubeconfig or the service account).",
    origin: "kubectl",
  },
];

/** Settings this controller adds to Argo CD's. */
const APPSET_OPTIONS: readonly OptionDef[] = [
  {
    key: "enableSyncEngine",
    flag: "enable-sync-engine",
    env: `${ACS}ENABLE_SYNC_ENGINE`,
    cmKey: `${CM}enable.sync.engine`,
    kind: "bool",
    default: false,
    description: "Sync Applications with the built-in sync engine (leave off when Argo CD's application controller syncs them).",
    origin: "appset",
  },
  {
    key: "refreshGracePeriodSeconds",
    flag: "refresh-grace-period-seconds",
    env: `${ACS}REFRESH_GRACE_PERIOD_SECONDS`,
    cmKey: `${CM}refresh.grace.period.seconds`,
    kind: "int",
    default: 30,
    min: 0,
    max: MAX_INT32,
    description: "How long a RollingSync step waits for an Application to be reconciled after its latest change before forcing a refresh.",
    origin: "appset",
  },
  {
    key: "gitCacheDir",
    flag: "git-cache-dir",
    env: `${ACS}GIT_CACHE_DIR`,
    cmKey: `${CM}git.cache.dir`,
    kind: "string",
    default: "",
    description:
      "Directory of the Git cache repositories, shared safely by the processes given the same one (empty: appset-git-cache in the system's temporary directory).",
    origin: "appset",
  },
  {
    key: "gitRevisionCacheSeconds",
    flag: "git-revision-cache-seconds",
    env: `${ACS}GIT_REVISION_CACHE_SECONDS`,
    cmKey: `${CM}git.revision.cache.seconds`,
    kind: "int",
    default: 3,
    min: 0,
    max: MAX_INT32,
    description:
      "How long a Git repository's branches and tags, as git ls-remote listed them, are kept before it is asked again (0: every time).",
    origin: "appset",
  },
  {
    key: "reconcileTimeoutSeconds",
    flag: "reconcile-timeout-seconds",
    env: `${ACS}RECONCILE_TIMEOUT_SECONDS`,
    cmKey: `${CM}reconcile.timeout.seconds`,
    kind: "int",
    default: 300,
    min: 0,
    max: MAX_INT32,
    description:
      "Deadline of one reconcile of the ApplicationSet controller or the sync engine: past it, what the reconcile waits for is aborted and it fails with a condition and is retried with backoff (0: none).",
    origin: "appset",
  },
];

/** Every setting, Argo CD's first. */
export const OPTIONS: readonly OptionDef[] = [...ARGO_OPTIONS, ...KUBECTL_OPTIONS, ...APPSET_OPTIONS];
