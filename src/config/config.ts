/**
 * The controller's configuration: one zod-validated object built from the command line and the
 * environment by the pure {@link parseConfig}. Precedence is flag > environment > default, as in
 * Argo CD, where each flag's default is read from its environment variable at startup.
 *
 * - Environment values follow Argo CD's lenient rules: a boolean that is not `true`/`false` (any
 *   case), an unparsable number or duration, or one outside its range falls back to the default
 *   with a warning; lists are comma-split and trimmed; durations also accept `Nd`.
 * - Flags are strict: an unknown flag, a missing argument or a bad value is an error, as cobra's are.
 * - Whatever the source, the log level, log format and policy must be known values, and the
 *   rules between settings hold (docs/configuration.md#rules-between-settings); otherwise the
 *   result is an error whose message is the one Argo CD exits with.
 */
import { z } from "zod";
import { OPTIONS, POLICIES, type OptionDef, type OptionValue } from "./options.js";
import {
  parseEnvBool,
  parseEnvDuration,
  parseFlagBool,
  parseDurationMs,
  parseInteger,
  parseFloatText,
  parseList,
  parseRequestTimeout,
  formatDurationMs,
  REQUEST_TIMEOUT_ERROR,
  type Parsed,
} from "./values.js";

/** The environment as the composition root passes it (`process.env`). */
export type Env = Readonly<Record<string, string | undefined>>;

const list = z.array(z.string()).readonly();
const int = z.number().int();

/** The resolved configuration. Durations are in milliseconds. */
export const ConfigSchema = z
  .object({
    metricsAddr: z.string(),
    probeAddr: z.string(),
    webhookAddr: z.string(),
    enableLeaderElection: z.boolean(),
    applicationSetNamespaces: list,
    argocdRepoServer: z.string(),
    policy: z.enum(POLICIES, { error: "Policy value can be: sync, create-only, create-update, create-delete, default value: sync" }),
    enablePolicyOverride: z.boolean(),
    debug: z.boolean(),
    logFormat: z.enum(["json", "text"], { error: (iss) => `Unknown log format '${String(iss.input)}'` }),
    logLevel: z.enum(["debug", "info", "warn", "error"], { error: (iss) => `Unknown log level '${String(iss.input)}'` }),
    allowedScmProviders: list,
    enableScmProviders: z.boolean(),
    dryRun: z.boolean(),
    tokenRefStrictMode: z.boolean(),
    enableProgressiveSyncs: z.boolean(),
    enableNewGitFileGlobbing: z.boolean(),
    repoServerPlaintext: z.boolean(),
    repoServerStrictTls: z.boolean(),
    repoServerTimeoutSeconds: int,
    repoServerCaCertPath: z.string(),
    repoServerClientCertPath: z.string(),
    repoServerClientCertKeyPath: z.string(),
    concurrentReconciliations: int.min(1),
    scmRootCaPath: z.string(),
    scmProxyUrl: z.string(),
    scmNoProxy: z.string(),
    preservedAnnotations: list,
    preservedLabels: list,
    webhookParallelismLimit: int.min(1).max(1000),
    metricsApplicationSetLabels: list,
    enableGithubApiMetrics: z.boolean(),
    maxResourcesStatusCount: int.min(0),
    cacheSyncPeriodMs: z.number().min(0),
    concurrentApplicationUpdates: int.min(1).max(200),
    wqBucketSize: int.min(1),
    wqBucketQps: z.number().min(1),
    wqCooldownMs: z.number().min(0),
    wqBaseDelayMs: z.number().positive(),
    wqMaxDelayMs: z.number().positive(),
    wqBackoffFactor: z.number().min(1).max(100),
    requeueAfterMs: z.number().min(0),
    k8sClientQps: z.number().min(0),
    k8sClientBurst: int.min(0),
    k8sClientMaxIdleConnections: int.min(0),
    k8sTcpTimeoutMs: z.number().min(0),
    k8sTcpKeepaliveMs: z.number().min(0),
    k8sTlsHandshakeTimeoutMs: z.number().min(0),
    k8sTcpIdleTimeoutMs: z.number().min(0),
    gitSubmodules: z.boolean(),
    logFormatTimestamp: z.string(),
    grpcEnableTxtServiceConfig: z.boolean(),
    profilerFilePath: z.string(),
    gitAttempts: int.min(1),
    gitRetryDurationMs: z.number().min(0),
    gitRetryFactor: int.min(0),
    gitRetryMaxDurationMs: z.number().min(0),
    gitRequestTimeoutMs: z.number().min(0),
    execTimeoutMs: z.number().positive(),
    profilerHeapSnapshot: z.boolean(),
    as: z.string(),
    asGroup: list,
    asUid: z.string(),
    certificateAuthority: z.string(),
    clientCertificate: z.string(),
    clientKey: z.string(),
    cluster: z.string(),
    context: z.string(),
    disableCompression: z.boolean(),
    insecureSkipTlsVerify: z.boolean(),
    kubeconfig: z.string(),
    namespace: z.string(),
    password: z.string(),
    proxyUrl: z.string(),
    requestTimeout: z.string().refine((t) => parseRequestTimeout(t).ok, { error: REQUEST_TIMEOUT_ERROR }),
    server: z.string(),
    tlsServerName: z.string(),
    token: z.string(),
    user: z.string(),
    username: z.string(),
    enableSyncEngine: z.boolean(),
    enableSharding: z.boolean(),
    shardGroup: z.string().regex(/^[a-z0-9]([-a-z0-9]{0,38}[a-z0-9])?$/, {
      error: "must be lowercase letters, digits and -, at most 40 characters, starting and ending with a letter or digit",
    }),
    applicationNamespaces: list,
    refreshGracePeriodSeconds: int.min(0),
    gitCacheDir: z.string(),
    allowLocalRepositories: z.boolean(),
    gitRevisionCacheSeconds: int.min(0),
    reconcileTimeoutSeconds: int.min(0),
    maxParameterSets: int.min(1),
    maxApplicationBytes: int.min(1),
    templateTimeoutMs: z.number().min(1),
    templateMaxListLength: int.min(1),
    scmMaxResponseBytes: int.min(1),
    scmMaxPages: int.min(1),
    pluginMaxResponseBytes: int.min(1),
    helmIndexMaxBytes: int.min(1),
    helmChartMaxBytes: int.min(1),
    gitFileMaxBytes: int.min(1),
    gitFilesMaxBytes: int.min(1),
    ociArtifactMaxBytes: int.min(1),
  })
  .strict();

/** The controller's configuration. */
export type Config = z.infer<typeof ConfigSchema>;

/** What {@link parseConfig} returns. */
export type ConfigResult =
  { kind: "config"; config: Config; warnings: string[] } | { kind: "help"; text: string } | { kind: "error"; message: string };

/** An error a flag or a rule produced, carried out of the parsing loop. */
class ConfigError extends Error {}

/** Values being resolved, and which settings were set explicitly (by flag or environment). */
interface Resolution {
  values: Record<string, OptionValue>;
  explicit: Set<string>;
  warnings: string[];
}

const byFlag = new Map(OPTIONS.filter((o) => o.flag !== undefined).map((o) => [o.flag!, o]));

/**
 * Builds the configuration from the arguments after the subcommand and the environment. Pure: it
 * reads nothing else.
 */
export function parseConfig(argv: readonly string[], env: Env): ConfigResult {
  const res = defaultsFromEnv(env);
  try {
    if (applyFlags(argv, res) === "help") return { kind: "help", text: configUsage() };
    return { kind: "config", config: validate(res), warnings: res.warnings };
  } catch (err) {
    if (err instanceof ConfigError) return { kind: "error", message: err.message };
    throw err;
  }
}

/** The level the logger should use: `--debug` forces debug. */
export function effectiveLogLevel(config: Config): Config["logLevel"] {
  return config.debug ? "debug" : config.logLevel;
}

/** Every default, overridden by its environment variable where one is set and valid. */
function defaultsFromEnv(env: Env): Resolution {
  const res: Resolution = { values: {}, explicit: new Set(), warnings: [] };
  for (const opt of OPTIONS) {
    const fallback = typeof opt.default === "function" ? opt.default(env) : opt.default;
    res.values[opt.key] = fallback;
    const text = opt.env === undefined ? undefined : env[opt.env];
    if (text === undefined || text === "") continue;
    const parsed = parseValue(opt, text, "env");
    if (parsed.ok) {
      res.values[opt.key] = parsed.value;
      res.explicit.add(opt.key);
    } else {
      res.warnings.push(`${opt.env}: ${parsed.error}; using the default ${JSON.stringify(fallback)}`);
    }
  }
  return res;
}

/** Applies the flags in order; returns "help" when help was asked for. */
function applyFlags(argv: readonly string[], res: Resolution): "help" | undefined {
  const listsSeen = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    if (token === "-h" || token === "--help") return "help";
    if (token === "--") {
      if (i + 1 < argv.length) throw new ConfigError(`unexpected argument "${argv[i + 1]}"`);
      break;
    }
    const { opt, text, consumed } = readFlag(argv, i);
    i += consumed;
    const parsed = parseValue(opt, text, "flag");
    if (!parsed.ok) throw new ConfigError(`invalid argument ${JSON.stringify(text)} for "--${opt.flag}" flag: ${parsed.error}`);
    res.values[opt.key] = appendList(opt, parsed.value, res.values[opt.key], listsSeen);
    res.explicit.add(opt.key);
  }
  return undefined;
}

/**
 * Reads the flag at `argv[i]`: `--name=value`, `--name value`, or a bare `--name` for a boolean
 * (pflag's rules). `consumed` is 1 when the value was the next argument.
 */
function readFlag(argv: readonly string[], i: number): { opt: OptionDef; text: string; consumed: number } {
  const token = argv[i]!;
  if (!token.startsWith("-")) throw new ConfigError(`unexpected argument "${token}"`);
  if (!token.startsWith("--")) return readShorthand(argv, i);
  const eq = token.indexOf("=");
  const name = token.slice(2, eq < 0 ? undefined : eq);
  const opt = byFlag.get(name);
  if (opt === undefined) throw new ConfigError(`unknown flag: --${name}`);
  if (eq >= 0) return { opt, text: token.slice(eq + 1), consumed: 0 };
  if (opt.kind === "bool") return { opt, text: "true", consumed: 0 };
  const next = argv[i + 1];
  if (next === undefined) throw new ConfigError(`flag needs an argument: --${name}`);
  return { opt, text: next, consumed: 1 };
}

/** kubectl's one-letter flags that the controller accepts. */
const SHORTHANDS: Readonly<Record<string, string>> = { n: "namespace" };

/** Reads `-n value`, `-n=value` or `-nvalue` (pflag's shorthand forms). */
function readShorthand(argv: readonly string[], i: number): { opt: OptionDef; text: string; consumed: number } {
  const token = argv[i]!;
  const opt = byFlag.get(SHORTHANDS[token.charAt(1)] ?? "");
  if (opt === undefined) throw new ConfigError(`unknown shorthand flag: ${JSON.stringify(token.charAt(1))} in ${token}`);
  const inline = token.slice(2).replace(/^=/, "");
  if (inline !== "") return { opt, text: inline, consumed: 0 };
  const next = argv[i + 1];
  if (next === undefined) throw new ConfigError(`flag needs an argument: ${JSON.stringify(token.charAt(1))} in ${token}`);
  return { opt, text: next, consumed: 1 };
}

/** A repeated list or array flag appends (pflag's StringSlice, StringArray); its first use replaces the default. */
function appendList(opt: OptionDef, value: OptionValue, previous: OptionValue | undefined, seen: Set<string>): OptionValue {
  if (opt.kind !== "list" && opt.kind !== "array") return value;
  const first = !seen.has(opt.key);
  seen.add(opt.key);
  return first ? value : [...(previous as readonly string[]), ...(value as readonly string[])];
}

/** Parses one value by its kind, with the environment's or the flag's syntax, and checks its range. */
function parseValue(opt: OptionDef, text: string, source: "env" | "flag"): Parsed<OptionValue> {
  switch (opt.kind) {
    case "bool":
      return source === "env" ? parseEnvBool(text) : parseFlagBool(text);
    case "list":
      return { ok: true, value: parseList(text) };
    case "array":
      return { ok: true, value: [text] };
    case "string":
      return { ok: true, value: text };
    case "int":
      return inRange(opt, parseInteger(text), String);
    case "float":
      return inRange(opt, parseFloatText(text), String);
    case "duration":
      return inRange(opt, source === "env" ? envDuration(opt, text) : parseDurationMs(text), (ms) => `${ms}ms`);
  }
}

/** An environment duration in ms: Go duration text, or an integer of nanoseconds for an `envUnit: "ns"` setting. */
function envDuration(opt: OptionDef, text: string): Parsed<number> {
  if (opt.envUnit !== "ns") return parseEnvDuration(text);
  const nanos = parseInteger(text);
  return nanos.ok ? { ok: true, value: nanos.value / 1e6 } : nanos;
}

function inRange(opt: OptionDef, parsed: Parsed<number>, show: (n: number) => string): Parsed<OptionValue> {
  if (!parsed.ok) return parsed;
  const { min = -Infinity, max = Infinity } = opt;
  if (parsed.value < min || parsed.value > max) {
    return { ok: false, error: `${show(parsed.value)} is outside the allowed range [${show(min)}, ${show(max)}]` };
  }
  return parsed;
}

/** Checks the resolved values and the rules that span several settings. */
function validate(res: Resolution): Config {
  const parsed = ConfigSchema.safeParse(res.values);
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map((i) => i.message).join("; "));
  const config = parsed.data;
  const certSet = res.explicit.has("repoServerClientCertPath");
  const keySet = res.explicit.has("repoServerClientCertKeyPath");
  if (certSet && !keySet)
    throw new ConfigError("--repo-server-client-cert-key-path is required when --repo-server-client-cert-path is specified");
  if (keySet && !certSet)
    throw new ConfigError("--repo-server-client-cert-path is required when --repo-server-client-cert-key-path is specified");
  // Ours: a tenant's ApplicationSet may only point its SCM generators at Secrets labelled for it.
  if (config.applicationSetNamespaces.length > 0 && !res.explicit.has("tokenRefStrictMode")) config.tokenRefStrictMode = true;
  if (config.applicationSetNamespaces.length > 0 && config.enableScmProviders && config.allowedScmProviders.length === 0) {
    throw new ConfigError(
      "When enabling applicationset in any namespace using applicationset-namespaces, you must either set --enable-scm-providers=false or specify --allowed-scm-providers",
    );
  }
  return config;
}

/** pflag's value placeholder of each kind (booleans take none). */
const PLACEHOLDER: Readonly<Record<OptionDef["kind"], string>> = {
  bool: "",
  int: "int",
  float: "float32",
  string: "string",
  list: "strings",
  array: "stringArray",
  duration: "duration",
};

/**
 * pflag's ` (default …)` suffix: nothing for a zero value or a computed default (its description
 * says how it is computed), strings quoted, durations in Go syntax.
 */
function defaultSuffix(opt: OptionDef): string {
  const d = opt.default;
  if (typeof d === "function" || d === "" || d === 0 || d === false || (Array.isArray(d) && d.length === 0)) return "";
  if (Array.isArray(d)) return ` (default [${d.join(",")}])`;
  if (opt.kind === "duration" && typeof d === "number") return ` (default ${formatDurationMs(d)})`;
  return typeof d === "string" ? ` (default ${JSON.stringify(d)})` : ` (default ${String(d)})`;
}

/**
 * The `--help` text of `command`, laid out as cobra does: each flag with its shorthand and value
 * placeholder, the descriptions in one column, then the default and the environment variable. With
 * `only`, just the flags of those settings (what the command reads); the others are said to be
 * accepted and ignored.
 */
export function configUsage(command = "appset controller", only?: ReadonlySet<string>): string {
  const shorthand = new Map(Object.entries(SHORTHANDS).map(([short, long]) => [long, short]));
  const listed = OPTIONS.filter((o) => o.flag !== undefined && (only === undefined || only.has(o.key)));
  const rows = listed.map((o) => {
    const short = shorthand.get(o.flag!);
    const name = o.placeholder ?? PLACEHOLDER[o.kind];
    const placeholder = name === "" ? "" : ` ${name}`;
    const env = o.env === undefined ? "" : ` [env ${o.env}]`;
    const dep = o.deprecated === undefined ? "" : ` (DEPRECATED: ${o.deprecated})`;
    return [
      `${short === undefined ? "    " : `-${short}, `}--${o.flag}${placeholder}`,
      `${o.description}${defaultSuffix(o)}${dep}${env}`,
    ] as const;
  });
  rows.push(["-h, --help", `help for ${command.split(" ").pop() ?? command}`]);
  const width = Math.max(...rows.map(([flag]) => flag.length));
  const lines = rows.map(([flag, text]) => `  ${flag.padEnd(width)}   ${text}`);
  const ignored = only === undefined ? "" : "\nThe controller's other flags are accepted and ignored.\n";
  return `Usage: ${command} [flags]\n\nFlags:\n${lines.join("\n")}\n${ignored}`;
}
