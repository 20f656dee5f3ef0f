/**
 * The table of every controller setting: its flag, its environment variable and its
 * `argocd-cmd-params-cm` key exactly as Argo CD names them (docs/configuration.md#reference), its
 * default and its range. Argo CD's Deployment maps each ConfigMap key to the environment variable
 * through `valueFrom.configMapKeyRef` (optional), so the process itself reads only flags and
 * environment. Data only: the parsing is in `config.ts`.
 */
import { ARGO_OPTIONS } from "./argo-cd-options.js";
import { K8S_CLIENT_OPTIONS } from "./k8s-client-options.js";
import { PROCESS_OPTIONS } from "./process-options.js";
import { EXEC_OPTIONS } from "./exec-options.js";
import { KUBECTL_OPTIONS } from "./kubectl-options.js";
import { LIMIT_OPTIONS } from "./limit-options.js";
import { ACS, CM, MAX_INT32, type OptionDef } from "./option-def.js";

export { POLICIES, type OptionDef, type OptionKind, type OptionOrigin, type OptionValue } from "./option-def.js";

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
    key: "enableSharding",
    flag: "enable-sharding",
    env: `${ACS}ENABLE_SHARDING`,
    cmKey: `${CM}enable.sharding`,
    kind: "bool",
    default: false,
    description:
      "Share the ApplicationSets among every replica of the shard group instead of one leader reconciling them all (docs/sharding.md); each replica holds a member Lease in the controller's namespace. The sync engine, when on, shares the Applications the same way.",
    origin: "appset",
  },
  {
    key: "shardGroup",
    flag: "shard-group",
    env: `${ACS}SHARD_GROUP`,
    cmKey: `${CM}shard.group`,
    kind: "string",
    default: "applicationset-controller",
    description:
      "The shard group of --enable-sharding: replicas of one group share the ApplicationSets and Applications (lowercase letters, digits and -, at most 40 characters; appset sync-engine joins applicationset-sync-engine in place of the default).",
    origin: "appset",
  },
  {
    key: "applicationNamespaces",
    flag: "application-namespaces",
    env: "ARGOCD_APPLICATION_NAMESPACES",
    cmKey: "application.namespaces",
    kind: "list",
    default: [],
    description:
      "Argo CD's application controller setting, read by the sync engine: namespaces (globs or /regex/) whose Applications it syncs, besides the controller's own; Applications elsewhere are left alone.",
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
    key: "allowLocalRepositories",
    flag: "allow-local-repositories",
    env: `${ACS}ALLOW_LOCAL_REPOSITORIES`,
    cmKey: `${CM}allow.local.repositories`,
    kind: "bool",
    default: false,
    description:
      "Read repositories named by a local path or a file:// URL (demos and tests only: any ApplicationSet or Application could then read the process's disk and the Git cache of other teams).",
    origin: "appset",
  },
  {
    key: "gitRevisionCacheSeconds",
    flag: "git-revision-cache-seconds",
    env: `${ACS}GIT_REVISION_CACHE_SECONDS`,
    cmKey: `${CM}git.revision.cache.seconds`,
    kind: "int",
    default: 180,
    min: 0,
    max: MAX_INT32,
    description:
      "How long a Git repository's branches and tags, as git ls-remote listed them, are kept before it is asked again (0: every time), as Argo CD's repo-server keeps resolved revisions 3 minutes; a webhook push or a refresh asks again at once. The sync engine keeps a Helm chart repository's index.yaml as long.",
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
  {
    key: "maxParameterSets",
    flag: "max-parameter-sets",
    env: `${ACS}MAX_PARAMETER_SETS`,
    cmKey: `${CM}max.parameter.sets`,
    kind: "int",
    default: 10_000,
    min: 1,
    max: MAX_INT32,
    description:
      "Most parameter sets one ApplicationSet may generate, all generators and a matrix's product included; more fails its generation.",
    origin: "appset",
  },
  {
    key: "maxApplicationBytes",
    flag: "max-application-bytes",
    env: `${ACS}MAX_APPLICATION_BYTES`,
    cmKey: `${CM}max.application.bytes`,
    kind: "int",
    default: 1_048_576,
    min: 1,
    max: 1_572_864,
    description:
      "Largest generated Application as JSON, in bytes; a larger one fails validation (the apiserver stores at most 1.5 MiB, status included).",
    origin: "appset",
  },
  {
    key: "templateTimeoutMs",
    flag: "template-timeout",
    env: `${ACS}TEMPLATE_TIMEOUT`,
    cmKey: `${CM}template.timeout`,
    kind: "duration",
    default: 500,
    min: 1,
    max: 60_000,
    description: "Longest one template execution may run; past it the rendering fails with a render budget error.",
    origin: "appset",
  },
  {
    key: "templateMaxListLength",
    flag: "template-max-list-length",
    env: `${ACS}TEMPLATE_MAX_LIST_LENGTH`,
    cmKey: `${CM}template.max.list.length`,
    kind: "int",
    default: 100_000,
    min: 1,
    max: MAX_INT32,
    description: "Most elements of a list that until, untilStep or seq may build in a template; checked before it is built.",
    origin: "appset",
  },
  {
    key: "profilerHeapSnapshot",
    flag: "profiler-heap-snapshot",
    env: `${ACS}PROFILER_HEAP_SNAPSHOT`,
    cmKey: `${CM}profiler.heap.snapshot`,
    kind: "bool",
    default: false,
    description:
      "Serve full V8 heap snapshots at /debug/pprof/heapsnapshot while the profiler is on. A snapshot holds every value in the process's memory, tokens and passwords included: turn it on only to debug, on a metrics port no tenant can reach.",
    origin: "appset",
  },
];

/** Every setting, Argo CD's first. */
export const OPTIONS: readonly OptionDef[] = [
  ...ARGO_OPTIONS,
  ...K8S_CLIENT_OPTIONS,
  ...PROCESS_OPTIONS,
  ...EXEC_OPTIONS,
  ...KUBECTL_OPTIONS,
  ...APPSET_OPTIONS,
  ...LIMIT_OPTIONS,
];
