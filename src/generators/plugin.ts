/**
 * Plugin generator (docs/generators.md#plugin): POSTs `input.parameters` to an HTTP plugin named by
 * a ConfigMap (`baseUrl`, `token` as a `$key` or `$secret:key` reference, `requestTimeout` in
 * seconds) and uses each object of `output.parameters` as a parameter set, with
 * `generator.input.parameters` added.
 *
 * Time limits: `requestTimeout` (Argo CD's name and default, 30 s; `0` means the default) bounds
 * the whole call, connection, headers and body, on the injected clock and together with the
 * caller's abort signal. Connection setup is also bounded by the fetch port itself (Node's fetch
 * gives up connecting after 10 s). Either running out is a {@link PluginTimeoutError}: the generator
 * fails with a condition and is retried, never read as "no parameters".
 *
 * Size limit: the answer is read up to `pluginMaxResponseBytes` (default 10 MiB; Argo CD reads it
 * whole); past it the call is aborted and fails with a {@link ResponseTooLargeError}.
 */
import { isRecord, secretValue, type PluginGenerator } from "../api/index.js";
import { readBounded, ResponseTooLargeError } from "../response-limit.js";
import { timeoutMessage, type TimeoutDetail } from "../scm/timeouts.js";
import { GeneratorError, GeneratorMessage, GeneratorWrap, wrapError } from "./errors.js";
import { appendValues, cloneJson, flattenParams, requeueFrom } from "./params.js";
import { templateMode, type Generator, type GeneratorContext, type ParamSet } from "./types.js";

/** Default request timeout (Argo CD: 30 s, also for `requestTimeout: "0"`). */
export const DEFAULT_PLUGIN_TIMEOUT_MS = 30_000;
/** How long Node's fetch waits for a connection (undici's default connect timeout). */
export const FETCH_CONNECT_TIMEOUT_MS = 10_000;
/** Default requeue of plugin generators (Argo CD: 30 min). */
export const PLUGIN_REQUEUE_MS = 30 * 60_000;
/** The Secret a bare `$key` token refers to. */
export const ARGOCD_SECRET = "argocd-secret";

/** The plugin's connection settings. */
interface PluginConfig {
  /** The plugin's name (its ConfigMap's), for messages. */
  readonly name: string;
  readonly url: string;
  readonly tokenRef: string;
  readonly timeoutMs: number;
}

/** A call to a plugin ran out of time (connection setup, or the whole request). */
export class PluginTimeoutError extends GeneratorError {
  constructor(
    readonly plugin: string,
    readonly detail: TimeoutDetail,
  ) {
    super(`plugin ${JSON.stringify(plugin)}: ${timeoutMessage(detail)}`);
  }
}

/**
 * Reads the plugin ConfigMap (baseUrl, token, requestTimeout). A `requestTimeout` of 0 takes the
 * default, as in Argo CD; a negative one also does (Argo CD would then wait without limit).
 */
export function pluginConfig(data: Readonly<Record<string, string>>, name = ""): PluginConfig {
  const baseUrl = data["baseUrl"] ?? "";
  if (baseUrl === "") throw new GeneratorError(GeneratorMessage.BaseUrlNotFound);
  const token = data["token"] ?? "";
  if (token === "") throw new GeneratorError(GeneratorMessage.TokenNotFound);
  let timeoutMs = DEFAULT_PLUGIN_TIMEOUT_MS;
  const raw = data["requestTimeout"];
  if (raw !== undefined && raw !== "") {
    if (!/^[+-]?\d+$/.test(raw.trim()))
      throw new GeneratorError(`error set requestTimeout : strconv.Atoi: parsing "${raw}": invalid syntax`);
    const seconds = Number.parseInt(raw.trim(), 10);
    if (seconds > 0) timeoutMs = seconds * 1000;
  }
  const path = "api/v1/getparams.execute";
  return { name, url: baseUrl.endsWith("/") ? `${baseUrl}${path}` : `${baseUrl}/${path}`, tokenRef: token, timeoutMs };
}

/**
 * Resolves `$key` (Secret argocd-secret) or `$secret:key`; a Secret that does not exist is an error,
 * an unknown key leaves the literal (as Argo CD's settings do).
 */
async function resolveToken(ref: string, ctx: GeneratorContext): Promise<string> {
  if (!ref.startsWith("$")) {
    throw new Error(`token is empty, or does not reference a secret key starting with '$': ${ref}`);
  }
  const body = ref.slice(1);
  const colon = body.indexOf(":");
  const [name, key] = colon < 0 ? [ARGOCD_SECRET, body] : [body.slice(0, colon), body.slice(colon + 1)];
  const secret = await ctx.ports.secrets?.getSecret(name, ctx.signal);
  if (secret === undefined)
    throw new Error(`error fetching secret ${ctx.ports.secrets?.namespace ?? ""}/${name}: Secret ${JSON.stringify(name)} not found`);
  const value = secretValue(secret, key);
  if (value === undefined) {
    ctx.logger?.warn({ secret: name, key }, "plugin token key not found; sending the reference as the token");
    return ref;
  }
  return value.trim();
}

function apiErrorText(status: number, body: string): string {
  let message = body;
  try {
    const parsed: unknown = JSON.parse(body);
    if (isRecord(parsed)) {
      const m = parsed["message"] ?? parsed["error"];
      if (typeof m === "string" && m !== "") message = m;
    }
  } catch {
    // not JSON: the raw body is the message
  }
  return `API error with status code ${String(status)}: ${message}`;
}

/** Whether `err` is the fetch port's own connect timeout (Node's fetch: a `TypeError` caused by undici's `UND_ERR_CONNECT_TIMEOUT`). */
function isConnectTimeout(err: unknown): boolean {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    if ((e as { code?: unknown }).code === "UND_ERR_CONNECT_TIMEOUT") return true;
  }
  return false;
}

/** The limit a connect timeout names (`timeout: 10000ms` in undici's message), else Node's default. */
function connectLimitOf(err: unknown): number {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    const m = /timeout: (\d+)ms/.exec(e.message);
    if (m?.[1] !== undefined) return Number(m[1]);
  }
  return FETCH_CONNECT_TIMEOUT_MS;
}

/** The error a failed call surfaces: the caller's abort as is, a limit that ran out as a {@link PluginTimeoutError}. */
function callFailure(cfg: PluginConfig, err: unknown, o: { deadline: AbortSignal; caller: AbortSignal | undefined }): unknown {
  if (err instanceof ResponseTooLargeError) return err;
  if (o.caller?.aborted === true) return o.caller.reason;
  if (o.deadline.aborted) return new PluginTimeoutError(cfg.name, { phase: "request", url: cfg.url, limitMs: cfg.timeoutMs });
  if (isConnectTimeout(err)) return new PluginTimeoutError(cfg.name, { phase: "connect", url: cfg.url, limitMs: connectLimitOf(err) });
  return unreachable(cfg, err) ?? err;
}

/**
 * fetch's "fetch failed" with the real cause named, in the shape of Go's client error:
 * `Post "URL": connect ECONNREFUSED 127.0.0.1:4355`; undefined for any other error.
 */
function unreachable(cfg: PluginConfig, err: unknown): Error | undefined {
  if (!(err instanceof TypeError) || err.message !== "fetch failed" || !(err.cause instanceof Error)) return undefined;
  return new Error(`Post ${JSON.stringify(cfg.url)}: ${err.cause.message}`, { cause: err });
}

/** The setting that raises a plugin's answer limit (named in the error). */
export const PLUGIN_LIMIT_SETTING = "--plugin-max-response-bytes";

/** The answer's text, read up to `limitBytes`; past it the call is aborted (the connection closes). */
async function readAnswer(
  cfg: PluginConfig,
  body: AsyncIterable<Uint8Array> | null,
  o: { limitBytes: number; deadline: AbortController },
): Promise<string> {
  if (body === null) return "";
  const source = `plugin ${JSON.stringify(cfg.name)}`;
  try {
    return (await readBounded(body, { source, url: cfg.url, limitBytes: o.limitBytes, setting: PLUGIN_LIMIT_SETTING })).toString("utf8");
  } catch (err) {
    if (err instanceof ResponseTooLargeError) o.deadline.abort(err);
    throw err;
  }
}

async function post(cfg: PluginConfig, token: string, body: string, ctx: GeneratorContext): Promise<string> {
  const http = ctx.ports.fetch;
  if (http === undefined) throw new Error("no HTTP client configured");
  const deadline = new AbortController();
  const timer = ctx.clock.setTimeout(() => deadline.abort(), cfg.timeoutMs);
  const signal = ctx.signal === undefined ? deadline.signal : AbortSignal.any([ctx.signal, deadline.signal]);
  try {
    const headers = { "Content-Type": "application/json", Authorization: `Bearer ${token}`, "User-Agent": "argocd-applicationset" };
    const res = await http(cfg.url, { method: "POST", headers, body, signal });
    const text = await readAnswer(cfg, res.body, { limitBytes: ctx.settings.pluginMaxResponseBytes, deadline });
    if (res.status < 200 || res.status > 299) throw new Error(apiErrorText(res.status, text));
    return text;
  } catch (err) {
    throw callFailure(cfg, err, { deadline: deadline.signal, caller: ctx.signal });
  } finally {
    ctx.clock.clearTimeout(timer);
  }
}

function outputParameters(text: string): Record<string, unknown>[] {
  if (text.trim() === "") return [];
  const parsed: unknown = JSON.parse(text);
  const output = isRecord(parsed) ? parsed["output"] : undefined;
  const list = isRecord(output) ? output["parameters"] : undefined;
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list) || !list.every(isRecord)) throw new Error("output.parameters is not a list of objects");
  return list;
}

/** The ConfigMap's data; a missing one is named as controller-runtime's cache names it. */
async function configMapData(name: string, ctx: GeneratorContext): Promise<Readonly<Record<string, string>>> {
  if (ctx.ports.configMaps === undefined) throw new Error("no ConfigMap source configured");
  try {
    return await ctx.ports.configMaps.getConfigMapData(name, ctx.signal);
  } catch (err) {
    if ((err as { reason?: string }).reason === "NotFound") throw new Error(`ConfigMap ${JSON.stringify(name)} not found`, { cause: err });
    throw err;
  }
}

/** The plugin's settings and token, failures worded as Argo CD's `error getting plugin from generator: …`. */
async function pluginClient(spec: PluginGenerator, ctx: GeneratorContext): Promise<{ cfg: PluginConfig; token: string }> {
  let data;
  try {
    data = await configMapData(spec.configMapRef.name, ctx);
    if ((data["baseUrl"] ?? "") === "") throw new Error(GeneratorMessage.BaseUrlNotFound);
    if ((data["token"] ?? "") === "") throw new Error(GeneratorMessage.TokenNotFound);
  } catch (err) {
    throw wrapError(GeneratorWrap.PluginClient, wrapError("error fetching ConfigMap", err));
  }
  let token;
  try {
    token = await resolveToken(data["token"] ?? "", ctx);
  } catch (err) {
    throw wrapError(GeneratorWrap.PluginClient, wrapError("error fetching Secret token", err));
  }
  try {
    return { cfg: pluginConfig(data, spec.configMapRef.name), token };
  } catch (err) {
    throw wrapError(GeneratorWrap.PluginClient, err);
  }
}

async function callPlugin(spec: PluginGenerator, appSetName: string, ctx: GeneratorContext): Promise<Record<string, unknown>[]> {
  const { cfg, token } = await pluginClient(spec, ctx);
  const body = JSON.stringify({ applicationSetName: appSetName, input: { parameters: spec.input?.parameters ?? {} } });
  try {
    return outputParameters(await post(cfg, token, body, ctx));
  } catch (err) {
    throw wrapError(GeneratorWrap.PluginParams, wrapError(`error get api '${appSetName}'`, err));
  }
}

/** The Plugin generator. */
export const pluginGenerator: Generator<PluginGenerator> = {
  async generate(spec, appSet, ctx) {
    const mode = templateMode(appSet);
    const objects = await callPlugin(spec, appSet.metadata.name ?? "", ctx);
    const generator = { input: { parameters: cloneJson(spec.input?.parameters ?? {}) } };
    return objects.map((o) => {
      const base: ParamSet = mode.goTemplate ? cloneJson(o) : flattenParams(o);
      return appendValues({ ...base, generator }, spec.values, mode, ctx.renderer);
    });
  },
  requeueAfterMs: (spec) => requeueFrom(spec.requeueAfterSeconds, PLUGIN_REQUEUE_MS),
  template: (spec) => spec.template,
};
