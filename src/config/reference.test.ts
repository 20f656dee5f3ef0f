import { describe, expect, it } from "vitest";
import { configReference, deploymentEnv } from "./reference.js";

const ACS = "ARGOCD_APPLICATIONSET_CONTROLLER_";
const CM = "applicationsetcontroller.";

/** Argo CD's flag table: flag, env, argocd-cmd-params-cm key, default. */
const ARGO_FLAGS: Array<[flag: string, env: string, cmKey: string, def: string]> = [
  ["--metrics-addr", "", "", ":8080"],
  ["--probe-addr", "", "", ":8081"],
  ["--webhook-addr", "", "", ":7000"],
  ["--enable-leader-election", `${ACS}ENABLE_LEADER_ELECTION`, `${CM}enable.leader.election`, "false"],
  ["--applicationset-namespaces", `${ACS}NAMESPACES`, `${CM}namespaces`, "[]"],
  ["--argocd-repo-server", `${ACS}REPO_SERVER`, "repo.server", "argocd-repo-server:8081"],
  ["--policy", `${ACS}POLICY`, `${CM}policy`, ""],
  ["--enable-policy-override", `${ACS}ENABLE_POLICY_OVERRIDE`, `${CM}enable.policy.override`, `true unless ${ACS}POLICY is set`],
  ["--debug", `${ACS}DEBUG`, `${CM}debug`, "false"],
  ["--logformat", `${ACS}LOGFORMAT`, `${CM}log.format`, "json"],
  ["--loglevel", `${ACS}LOGLEVEL`, `${CM}log.level`, "info"],
  ["--allowed-scm-providers", `${ACS}ALLOWED_SCM_PROVIDERS`, `${CM}allowed.scm.providers`, "[]"],
  ["--enable-scm-providers", `${ACS}ENABLE_SCM_PROVIDERS`, `${CM}enable.scm.providers`, "true"],
  ["--dry-run", `${ACS}DRY_RUN`, `${CM}dryrun`, "false"],
  // Argo CD's default is false; ours turns on with --applicationset-namespaces (docs/security.md#credentials).
  [
    "--token-ref-strict-mode",
    `${ACS}TOKENREF_STRICT_MODE`,
    `${CM}enable.tokenref.strict.mode`,
    "true when --applicationset-namespaces is set, else false",
  ],
  ["--enable-progressive-syncs", `${ACS}ENABLE_PROGRESSIVE_SYNCS`, `${CM}enable.progressive.syncs`, "false"],
  ["--enable-new-git-file-globbing", `${ACS}ENABLE_NEW_GIT_FILE_GLOBBING`, `${CM}enable.new.git.file.globbing`, "false"],
  ["--repo-server-plaintext", `${ACS}REPO_SERVER_PLAINTEXT`, `${CM}repo.server.plaintext`, "false"],
  ["--repo-server-strict-tls", `${ACS}REPO_SERVER_STRICT_TLS`, `${CM}repo.server.strict.tls`, "false"],
  ["--repo-server-timeout-seconds", `${ACS}REPO_SERVER_TIMEOUT_SECONDS`, `${CM}repo.server.timeout.seconds`, "60"],
  ["--repo-server-ca-cert-path", `${ACS}REPO_SERVER_CA_CERT_PATH`, `${CM}repo.server.ca.cert.path`, ""],
  [
    "--repo-server-client-cert-path",
    `${ACS}REPO_SERVER_CLIENT_CERT_PATH`,
    `${CM}repo.server.client.cert.path`,
    "/app/config/reposerver/mtls/client.crt",
  ],
  [
    "--repo-server-client-cert-key-path",
    `${ACS}REPO_SERVER_CLIENT_CERT_KEY_PATH`,
    `${CM}repo.server.client.cert.key.path`,
    "/app/config/reposerver/mtls/client.key",
  ],
  ["--concurrent-reconciliations", `${ACS}CONCURRENT_RECONCILIATIONS`, `${CM}concurrent.reconciliations.max`, "10"],
  ["--scm-root-ca-path", `${ACS}SCM_ROOT_CA_PATH`, `${CM}scm.root.ca.path`, ""],
  ["--scm-proxy-url", `${ACS}SCM_PROXY_URL`, "", ""],
  ["--scm-no-proxy", `${ACS}SCM_NO_PROXY`, "", ""],
  ["--preserved-annotations", `${ACS}GLOBAL_PRESERVED_ANNOTATIONS`, `${CM}global.preserved.annotations`, "[]"],
  ["--preserved-labels", `${ACS}GLOBAL_PRESERVED_LABELS`, `${CM}global.preserved.labels`, "[]"],
  ["--webhook-parallelism-limit", `${ACS}WEBHOOK_PARALLELISM_LIMIT`, `${CM}webhook.parallelism.limit`, "50"],
  ["--metrics-applicationset-labels", "", "", "[]"],
  ["--enable-github-api-metrics", `${ACS}ENABLE_GITHUB_API_METRICS`, `${CM}enable.github.api.metrics`, "false"],
  ["--max-resources-status-count", `${ACS}MAX_RESOURCES_STATUS_COUNT`, `${CM}status.max.resources.count`, "5000"],
  ["--cache-sync-period", `${ACS}CACHE_SYNC_PERIOD`, "", "10h0m0s"],
  ["--concurrent-application-updates", `${ACS}CONCURRENT_APPLICATION_UPDATES`, "", "1"],
  ["--wq-bucket-size", `${ACS}WORKQUEUE_BUCKET_SIZE`, `${CM}wq.bucket.size`, "500"],
  ["--wq-bucket-qps", `${ACS}WORKQUEUE_BUCKET_QPS`, `${CM}wq.bucket.qps`, "1.7976931348623157e+308"],
  ["--wq-cooldown", `${ACS}WORKQUEUE_FAILURE_COOLDOWN_NS`, `${CM}wq.cooldown.ns`, "0s"],
  ["--wq-basedelay", `${ACS}WORKQUEUE_BASE_DELAY_NS`, `${CM}wq.basedelay.ns`, "1ms"],
  ["--wq-maxdelay", `${ACS}WORKQUEUE_MAX_DELAY_NS`, `${CM}wq.maxdelay.ns`, "16m40s"],
  ["--wq-backoff-factor", `${ACS}WORKQUEUE_BACKOFF_FACTOR`, `${CM}wq.backoff.factor`, "1.5"],
];

describe("configReference", () => {
  it("lists Argo CD's 41 controller flags with their exact env, ConfigMap key and default", () => {
    const rows = configReference().filter((r) => r.origin === "argo-cd" && r.flag !== "");
    expect(rows.map((r) => [r.flag, r.env, r.cmKey, r.default])).toEqual(ARGO_FLAGS);
    expect(rows).toHaveLength(41);
  });

  it.each([
    // the settings outside Argo CD's flag table
    { name: "the requeue interval is environment-only", flag: "", env: `${ACS}REQUEUE_AFTER`, cmKey: `${CM}requeue.after`, def: "3m0s" },
    {
      name: "the refresh grace period is ours",
      flag: "--refresh-grace-period-seconds",
      env: `${ACS}REFRESH_GRACE_PERIOD_SECONDS`,
      cmKey: `${CM}refresh.grace.period.seconds`,
      def: "30",
    },
    {
      name: "the sync engine switch is ours",
      flag: "--enable-sync-engine",
      env: `${ACS}ENABLE_SYNC_ENGINE`,
      cmKey: `${CM}enable.sync.engine`,
      def: "false",
    },
    {
      name: "the Git cache directory is ours",
      flag: "--git-cache-dir",
      env: "ARGOCD_APPLICATIONSET_CONTROLLER_GIT_CACHE_DIR",
      cmKey: "applicationsetcontroller.git.cache.dir",
      def: "",
    },
    {
      name: "the Git revision cache interval is ours",
      flag: "--git-revision-cache-seconds",
      env: "ARGOCD_APPLICATIONSET_CONTROLLER_GIT_REVISION_CACHE_SECONDS",
      cmKey: "applicationsetcontroller.git.revision.cache.seconds",
      def: "180",
    },
    {
      name: "the reconcile deadline is ours",
      flag: "--reconcile-timeout-seconds",
      env: "ARGOCD_APPLICATIONSET_CONTROLLER_RECONCILE_TIMEOUT_SECONDS",
      cmKey: "applicationsetcontroller.reconcile.timeout.seconds",
      def: "300",
    },
    { name: "the kubeconfig flag reads KUBECONFIG", flag: "--kubeconfig", env: "KUBECONFIG", cmKey: "", def: "" },
  ])("has a row where $name", ({ flag, env, cmKey, def }) => {
    const row = configReference().find((r) => r.env === env || (r.flag === flag && flag !== ""));
    expect(row && [row.flag, row.env, row.cmKey, row.default]).toEqual([flag, env, cmKey, def]);
  });

  it("marks the deprecated flag in its description", () => {
    const row = configReference().find((r) => r.flag === "--repo-server-strict-tls");
    expect(row?.description).toContain("Deprecated: use --repo-server-ca-cert-path instead.");
  });
});

describe("deploymentEnv", () => {
  it("maps every ConfigMap key to its env var through an optional configMapKeyRef, as Argo CD's Deployment does", () => {
    const entries = deploymentEnv();
    expect(entries).toContainEqual({
      name: `${ACS}ENABLE_LEADER_ELECTION`,
      valueFrom: { configMapKeyRef: { name: "argocd-cmd-params-cm", key: `${CM}enable.leader.election`, optional: true } },
    });
    const withKey = configReference().filter((r) => r.cmKey !== "" && r.env !== "");
    expect(entries.map((e) => e.name)).toEqual(withKey.map((r) => r.env));
    expect(entries.map((e) => e.name)).not.toContain(`${ACS}CACHE_SYNC_PERIOD`);
  });
});
