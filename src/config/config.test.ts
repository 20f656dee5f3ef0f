import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ConfigSchema, configUsage, effectiveLogLevel, parseConfig, type Config, type Env } from "./config.js";
import { OPTIONS } from "./options.js";

const ACS = "ARGOCD_APPLICATIONSET_CONTROLLER_";

function config(argv: string[] = [], env: Env = {}): { config: Config; warnings: string[] } {
  const r = parseConfig(argv, env);
  if (r.kind !== "config") throw new Error(`expected a config, got ${JSON.stringify(r)}`);
  return r;
}

function errorOf(argv: string[], env: Env = {}): string {
  const r = parseConfig(argv, env);
  if (r.kind !== "error") throw new Error(`expected an error, got ${r.kind}`);
  return r.message;
}

describe("parseConfig defaults", () => {
  it("gives Argo CD's defaults with no flags and an empty environment", () => {
    const { config: c, warnings } = config();
    expect(warnings).toEqual([]);
    expect(c).toMatchObject({
      metricsAddr: ":8080",
      probeAddr: ":8081",
      webhookAddr: ":7000",
      enableLeaderElection: false,
      applicationSetNamespaces: [],
      argocdRepoServer: "argocd-repo-server:8081",
      policy: "",
      enablePolicyOverride: true,
      logFormat: "json",
      logLevel: "info",
      enableScmProviders: true,
      dryRun: false,
      concurrentReconciliations: 10,
      concurrentApplicationUpdates: 1,
      webhookParallelismLimit: 50,
      maxResourcesStatusCount: 5000,
      cacheSyncPeriodMs: 36_000_000,
      requeueAfterMs: 180_000,
      repoServerTimeoutSeconds: 60,
      enableSyncEngine: false,
      applicationNamespaces: [],
      refreshGracePeriodSeconds: 30,
      gitCacheDir: "",
      gitRevisionCacheSeconds: 180,
      reconcileTimeoutSeconds: 300,
      wqBucketSize: 500,
      wqBucketQps: Number.MAX_VALUE,
      wqCooldownMs: 0,
      wqBaseDelayMs: 1,
      wqMaxDelayMs: 1_000_000,
      wqBackoffFactor: 1.5,
    });
  });

  it("describes every setting of the table in the schema, and nothing else", () => {
    expect(OPTIONS.map((o) => o.key).sort()).toEqual(Object.keys(ConfigSchema.shape).sort());
    expect(new Set(OPTIONS.map((o) => o.key)).size).toBe(OPTIONS.length);
  });
});

describe("parseConfig precedence", () => {
  it.each([
    // argv/env: the inputs; key: the Config field; expected: its value
    {
      name: "an env int replaces the default",
      argv: [],
      env: { [`${ACS}CONCURRENT_RECONCILIATIONS`]: "4" },
      key: "concurrentReconciliations",
      expected: 4,
    },
    {
      name: "a flag int replaces the env",
      argv: ["--concurrent-reconciliations", "7"],
      env: { [`${ACS}CONCURRENT_RECONCILIATIONS`]: "4" },
      key: "concurrentReconciliations",
      expected: 7,
    },
    { name: "an env bool in any case is read", argv: [], env: { [`${ACS}DRY_RUN`]: "TrUe" }, key: "dryRun", expected: true },
    { name: "a bare bool flag means true", argv: ["--enable-leader-election"], env: {}, key: "enableLeaderElection", expected: true },
    {
      name: "a bool flag with =false beats a true env",
      argv: ["--enable-progressive-syncs=false"],
      env: { [`${ACS}ENABLE_PROGRESSIVE_SYNCS`]: "true" },
      key: "enableProgressiveSyncs",
      expected: false,
    },
    {
      name: "an env list is split and trimmed",
      argv: ["--enable-scm-providers=false"],
      env: { [`${ACS}NAMESPACES`]: " team-*, /^prod-/ " },
      key: "applicationSetNamespaces",
      expected: ["team-*", "/^prod-/"],
    },
    {
      name: "a repeated list flag appends, and its first use replaces the env",
      argv: ["--preserved-labels=a,b", "--preserved-labels", "c"],
      env: { [`${ACS}GLOBAL_PRESERVED_LABELS`]: "x" },
      key: "preservedLabels",
      expected: ["a", "b", "c"],
    },
    {
      name: "an env duration accepts days",
      argv: [],
      env: { [`${ACS}CACHE_SYNC_PERIOD`]: "1d" },
      key: "cacheSyncPeriodMs",
      expected: 86_400_000,
    },
    { name: "a flag duration uses Go syntax", argv: ["--cache-sync-period=90m"], env: {}, key: "cacheSyncPeriodMs", expected: 5_400_000 },
    { name: "an env-only duration is read", argv: [], env: { [`${ACS}REQUEUE_AFTER`]: "30s" }, key: "requeueAfterMs", expected: 30_000 },
    { name: "a wq bucket size flag is read", argv: ["--wq-bucket-size=20"], env: {}, key: "wqBucketSize", expected: 20 },
    { name: "a wq bucket qps env is a float", argv: [], env: { [`${ACS}WORKQUEUE_BUCKET_QPS`]: "2.5" }, key: "wqBucketQps", expected: 2.5 },
    {
      name: "a wq duration env is a count of nanoseconds",
      argv: [],
      env: { [`${ACS}WORKQUEUE_FAILURE_COOLDOWN_NS`]: "90000000000" },
      key: "wqCooldownMs",
      expected: 90_000,
    },
    {
      name: "a wq base delay env below a millisecond is kept",
      argv: [],
      env: { [`${ACS}WORKQUEUE_BASE_DELAY_NS`]: "500000" },
      key: "wqBaseDelayMs",
      expected: 0.5,
    },
    {
      name: "a wq duration flag uses Go syntax and beats the env",
      argv: ["--wq-maxdelay=1m30s"],
      env: { [`${ACS}WORKQUEUE_MAX_DELAY_NS`]: "5000000000" },
      key: "wqMaxDelayMs",
      expected: 90_000,
    },
    { name: "a wq backoff factor flag is read", argv: ["--wq-backoff-factor", "3"], env: {}, key: "wqBackoffFactor", expected: 3 },
    {
      name: "the refresh grace period has a flag",
      argv: ["--refresh-grace-period-seconds", "0"],
      env: {},
      key: "refreshGracePeriodSeconds",
      expected: 0,
    },
    {
      name: "the refresh grace period has an env",
      argv: [],
      env: { [`${ACS}REFRESH_GRACE_PERIOD_SECONDS`]: "45" },
      key: "refreshGracePeriodSeconds",
      expected: 45,
    },
    {
      name: "the sync engine is enabled by env",
      argv: [],
      env: { [`${ACS}ENABLE_SYNC_ENGINE`]: "true" },
      key: "enableSyncEngine",
      expected: true,
    },
    {
      name: "the Git cache directory has a flag",
      argv: ["--git-cache-dir", "/var/cache/appset"],
      env: {},
      key: "gitCacheDir",
      expected: "/var/cache/appset",
    },
    {
      name: "the Git cache directory has an env",
      argv: [],
      env: { ARGOCD_APPLICATIONSET_CONTROLLER_GIT_CACHE_DIR: "/srv/git" },
      key: "gitCacheDir",
      expected: "/srv/git",
    },
    {
      name: "the Git revision cache can be turned off by flag",
      argv: ["--git-revision-cache-seconds=0"],
      env: {},
      key: "gitRevisionCacheSeconds",
      expected: 0,
    },
    {
      name: "the Git revision cache has an env",
      argv: [],
      env: { ARGOCD_APPLICATIONSET_CONTROLLER_GIT_REVISION_CACHE_SECONDS: "10" },
      key: "gitRevisionCacheSeconds",
      expected: 10,
    },
    { name: "the parameter-set limit has a flag", argv: ["--max-parameter-sets=50"], env: {}, key: "maxParameterSets", expected: 50 },
    {
      name: "the Application size limit has an env",
      argv: [],
      env: { ARGOCD_APPLICATIONSET_CONTROLLER_MAX_APPLICATION_BYTES: "200000" },
      key: "maxApplicationBytes",
      expected: 200_000,
    },
    { name: "the template timeout is a Go duration", argv: ["--template-timeout=2s"], env: {}, key: "templateTimeoutMs", expected: 2_000 },
    {
      name: "the template list limit has a flag",
      argv: ["--template-max-list-length", "10"],
      env: {},
      key: "templateMaxListLength",
      expected: 10,
    },
    {
      name: "the reconcile deadline has a flag",
      argv: ["--reconcile-timeout-seconds", "30"],
      env: {},
      key: "reconcileTimeoutSeconds",
      expected: 30,
    },
    {
      name: "the reconcile deadline has an env",
      argv: [],
      env: { ARGOCD_APPLICATIONSET_CONTROLLER_RECONCILE_TIMEOUT_SECONDS: "0" },
      key: "reconcileTimeoutSeconds",
      expected: 0,
    },
    { name: "KUBECONFIG is the kubeconfig default", argv: [], env: { KUBECONFIG: "kc.yaml" }, key: "kubeconfig", expected: "kc.yaml" },
    { name: "an empty env value leaves the default", argv: [], env: { [`${ACS}LOGFORMAT`]: "" }, key: "logFormat", expected: "json" },
    { name: "kubectl's -n sets the namespace", argv: ["-n", "argocd"], env: {}, key: "namespace", expected: "argocd" },
    { name: "kubectl's -n takes an inline value", argv: ["-nargocd"], env: {}, key: "namespace", expected: "argocd" },
    { name: "kubectl's -n takes an = value", argv: ["-n=argocd"], env: {}, key: "namespace", expected: "argocd" },
    {
      name: "a string flag with = may contain =",
      argv: ["--argocd-repo-server=a=b:1"],
      env: {},
      key: "argocdRepoServer",
      expected: "a=b:1",
    },
  ])("$name", ({ argv, env, key, expected }) => {
    expect(config(argv, env).config[key as keyof Config]).toEqual(expected);
  });

  it("reads any in-range int the same from a flag and from the env", () => {
    const ints = OPTIONS.filter((o) => o.kind === "int" && o.flag !== undefined && o.env !== undefined);
    fc.assert(
      fc.property(fc.constantFrom(...ints), fc.integer({ min: 0, max: 1_000 }), (opt, n) => {
        const value = Math.min(Math.max(n, opt.min ?? n), opt.max ?? Infinity);
        const fromFlag = config([`--${opt.flag}=${value}`]).config[opt.key as keyof Config];
        const fromEnv = config([], { [opt.env!]: String(value) }).config[opt.key as keyof Config];
        expect([fromFlag, fromEnv]).toEqual([value, value]);
      }),
    );
  });
});

describe("parseConfig environment fallbacks", () => {
  it.each([
    // env: one bad environment value; key: the field that keeps its default; fallback: that default
    { name: "a bool that is not true/false", env: { [`${ACS}DRY_RUN`]: "yes" }, key: "dryRun", fallback: false },
    { name: "an unparsable int", env: { [`${ACS}CONCURRENT_RECONCILIATIONS`]: "many" }, key: "concurrentReconciliations", fallback: 10 },
    {
      name: "an int below its minimum",
      env: { [`${ACS}CONCURRENT_RECONCILIATIONS`]: "0" },
      key: "concurrentReconciliations",
      fallback: 10,
    },
    {
      name: "an int above its maximum",
      env: { [`${ACS}WEBHOOK_PARALLELISM_LIMIT`]: "1001" },
      key: "webhookParallelismLimit",
      fallback: 50,
    },
    { name: "a duration above its maximum", env: { [`${ACS}CACHE_SYNC_PERIOD`]: "25h" }, key: "cacheSyncPeriodMs", fallback: 36_000_000 },
    { name: "a duration below its minimum", env: { [`${ACS}REQUEUE_AFTER`]: "500ms" }, key: "requeueAfterMs", fallback: 180_000 },
    {
      name: "a nanosecond wq duration written as Go duration text",
      env: { [`${ACS}WORKQUEUE_MAX_DELAY_NS`]: "5s" },
      key: "wqMaxDelayMs",
      fallback: 1_000_000,
    },
    { name: "a wq max delay below 1 ms", env: { [`${ACS}WORKQUEUE_MAX_DELAY_NS`]: "999999" }, key: "wqMaxDelayMs", fallback: 1_000_000 },
    {
      name: "a wq cooldown above 24 h",
      env: { [`${ACS}WORKQUEUE_FAILURE_COOLDOWN_NS`]: "86400000000001" },
      key: "wqCooldownMs",
      fallback: 0,
    },
    { name: "a wq bucket qps below 1", env: { [`${ACS}WORKQUEUE_BUCKET_QPS`]: "0.5" }, key: "wqBucketQps", fallback: Number.MAX_VALUE },
    { name: "a wq bucket size of 0", env: { [`${ACS}WORKQUEUE_BUCKET_SIZE`]: "0" }, key: "wqBucketSize", fallback: 500 },
    { name: "a wq backoff factor above 100", env: { [`${ACS}WORKQUEUE_BACKOFF_FACTOR`]: "101" }, key: "wqBackoffFactor", fallback: 1.5 },
  ])("falls back to the default with a warning for $name", ({ env, key, fallback }) => {
    const { config: c, warnings } = config([], env);
    expect(c[key as keyof Config]).toEqual(fallback);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(Object.keys(env)[0]);
  });
});

describe("parseConfig errors", () => {
  it.each([
    // argv/env: the inputs; message: the error
    { name: "an unknown flag", argv: ["--frobnicate"], env: {}, message: "unknown flag: --frobnicate" },
    { name: "a flag without its argument", argv: ["--policy"], env: {}, message: "flag needs an argument: --policy" },
    {
      name: "a bad int flag",
      argv: ["--concurrent-reconciliations=ten"],
      env: {},
      message: 'invalid argument "ten" for "--concurrent-reconciliations" flag: invalid integer "ten"',
    },
    {
      name: "an int flag out of range",
      argv: ["--webhook-parallelism-limit", "0"],
      env: {},
      message: 'invalid argument "0" for "--webhook-parallelism-limit" flag: 0 is outside the allowed range [1, 1000]',
    },
    {
      name: "a bad bool flag value",
      argv: ["--dry-run=yes"],
      env: {},
      message: 'invalid argument "yes" for "--dry-run" flag: invalid boolean "yes"',
    },
    { name: "a bool flag with a separate value", argv: ["--dry-run", "false"], env: {}, message: 'unexpected argument "false"' },
    {
      name: "a days duration on a flag",
      argv: ["--cache-sync-period=1d"],
      env: {},
      message: 'invalid argument "1d" for "--cache-sync-period" flag: time: unknown unit "d" in duration "1d"',
    },
    { name: "an unknown shorthand flag", argv: ["-v"], env: {}, message: 'unknown shorthand flag: "v" in -v' },
    { name: "a shorthand flag without its argument", argv: ["-n"], env: {}, message: 'flag needs an argument: "n" in -n' },
    { name: "an argument after --", argv: ["--", "extra"], env: {}, message: 'unexpected argument "extra"' },
    {
      name: "an unknown policy flag",
      argv: ["--policy=delete-all"],
      env: {},
      message: "Policy value can be: sync, create-only, create-update, create-delete, default value: sync",
    },
    {
      name: "an unknown policy from the env",
      argv: [],
      env: { [`${ACS}POLICY`]: "nope" },
      message: "Policy value can be: sync, create-only, create-update, create-delete, default value: sync",
    },
    { name: "an unknown log level", argv: ["--loglevel=verbose"], env: {}, message: "Unknown log level 'verbose'" },
    { name: "an unknown log format", argv: [], env: { [`${ACS}LOGFORMAT`]: "xml" }, message: "Unknown log format 'xml'" },
    {
      name: "a client cert without its key",
      argv: ["--repo-server-client-cert-path=c.crt"],
      env: {},
      message: "--repo-server-client-cert-key-path is required when --repo-server-client-cert-path is specified",
    },
    {
      name: "a client key without its cert",
      argv: [],
      env: { [`${ACS}REPO_SERVER_CLIENT_CERT_KEY_PATH`]: "c.key" },
      message: "--repo-server-client-cert-path is required when --repo-server-client-cert-key-path is specified",
    },
    {
      name: "cluster-wide namespaces with every SCM provider allowed",
      argv: ["--applicationset-namespaces=team-*"],
      env: {},
      message:
        "When enabling applicationset in any namespace using applicationset-namespaces, you must either set --enable-scm-providers=false or specify --allowed-scm-providers",
    },
  ])("rejects $name", ({ argv, env, message }) => {
    expect(errorOf(argv, env)).toBe(message);
  });

  it.each([
    { name: "SCM providers are disabled", argv: ["--applicationset-namespaces=team-*", "--enable-scm-providers=false"] },
    { name: "an SCM allow-list is given", argv: ["--applicationset-namespaces=team-*", "--allowed-scm-providers=https://github.com/"] },
  ])("accepts cluster-wide namespaces when $name", ({ argv }) => {
    expect(config(argv).config.applicationSetNamespaces).toEqual(["team-*"]);
  });

  it.each([
    // name; flags; environment; --token-ref-strict-mode as resolved
    { name: "off without --applicationset-namespaces", argv: [], env: {}, strict: false },
    {
      name: "on with --applicationset-namespaces",
      argv: ["--enable-scm-providers=false", "--applicationset-namespaces=team-*"],
      env: {},
      strict: true,
    },
    {
      name: "on with the namespaces' environment variable",
      argv: [],
      env: { ARGOCD_APPLICATIONSET_CONTROLLER_NAMESPACES: "team-*", ARGOCD_APPLICATIONSET_CONTROLLER_ENABLE_SCM_PROVIDERS: "false" },
      strict: true,
    },
    {
      name: "off when turned off by flag",
      argv: ["--enable-scm-providers=false", "--applicationset-namespaces=team-*", "--token-ref-strict-mode=false"],
      env: {},
      strict: false,
    },
    {
      name: "off when turned off by environment",
      argv: ["--enable-scm-providers=false", "--applicationset-namespaces=team-*"],
      env: { ARGOCD_APPLICATIONSET_CONTROLLER_TOKENREF_STRICT_MODE: "false" },
      strict: false,
    },
  ])("--token-ref-strict-mode is $name", ({ argv, env, strict }) => {
    expect(config(argv, env).config.tokenRefStrictMode).toBe(strict);
  });

  it("accepts a client cert and key given together", () => {
    expect(
      config(["--repo-server-client-cert-path=c.crt", "--repo-server-client-cert-key-path=c.key"]).config.repoServerClientCertKeyPath,
    ).toBe("c.key");
  });
});

describe("parseConfig quirks kept from Argo CD", () => {
  it.each([
    // the policy override default follows the env policy, not the flag
    { name: "no policy anywhere enables it", argv: [], env: {}, expected: true },
    { name: "a policy flag alone leaves it enabled", argv: ["--policy=create-only"], env: {}, expected: true },
    { name: "a policy in the env disables it", argv: [], env: { [`${ACS}POLICY`]: "create-only" }, expected: false },
    { name: "the flag can still turn it back on", argv: ["--enable-policy-override"], env: { [`${ACS}POLICY`]: "sync" }, expected: true },
  ])("policy override default: $name", ({ argv, env, expected }) => {
    expect(config(argv, env).config.enablePolicyOverride).toBe(expected);
  });

  it("forces the debug level when --debug is set, whatever --loglevel says", () => {
    expect(effectiveLogLevel(config(["--debug", "--loglevel=error"]).config)).toBe("debug");
    expect(effectiveLogLevel(config(["--loglevel=error"]).config)).toBe("error");
  });
});

describe("parseConfig help", () => {
  it("returns the usage, listing every flag with its environment variable", () => {
    const r = parseConfig(["--dry-run", "--help"], {});
    expect(r.kind).toBe("help");
    const text = r.kind === "help" ? r.text : "";
    expect(text).toBe(configUsage());
    expect(text).toMatch(
      new RegExp(
        `--concurrent-reconciliations int +How many ApplicationSets are reconciled at once\\. \\(default 10\\) \\[env ${ACS}CONCURRENT_RECONCILIATIONS\\]`,
      ),
    );
    expect(text).toContain("(DEPRECATED: use --repo-server-ca-cert-path instead)");
  });

  it.each([
    // flag: the flag's text in the usage, with pflag's placeholder; suffix: the default as pflag prints it
    { name: "an int64 bucket size", flag: "--wq-bucket-size int64", suffix: "(default 500)" },
    { name: "a float64 bucket qps at its largest value", flag: "--wq-bucket-qps float64", suffix: "(default 1.7976931348623157e+308)" },
    { name: "a 1 ms base delay", flag: "--wq-basedelay duration", suffix: "(default 1ms)" },
    { name: "a 1000 s max delay", flag: "--wq-maxdelay duration", suffix: "(default 16m40s)" },
    { name: "a float64 backoff factor", flag: "--wq-backoff-factor float64", suffix: "(default 1.5)" },
  ])("shows $name as Argo CD's flag does", ({ flag, suffix }) => {
    const line = configUsage()
      .split("\n")
      .find((l) => l.trim().startsWith(`${flag} `));
    expect(line).toContain(suffix);
  });
});
