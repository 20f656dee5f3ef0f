/**
 * A Helm repository's `index.yaml`, fetched as Argo CD's repo-server fetches it (`GetIndex`): one
 * GET of `<repoURL>/index.yaml` with basic auth when the repository has credentials, its CA bundle,
 * client certificate, `insecure` and proxy, within a time limit; its chart entries parsed. Errors
 * carry Argo CD's words (`error loading repo index: failed to get index: 401 Unauthorized`).
 * The body is read up to `maxBytes` (Argo CD's `--helm-registry-max-index-size`, default 1G);
 * past it reading stops and the fetch fails with `error loading repo index: …` naming the limit
 * (Argo CD cuts the body there and fails on the cut YAML).
 *
 * I/O boundary: the HTTP request (undici) and the CA file.
 */
import { nodeHttp } from "../../node-http.js";
import { posix } from "node:path";
import { request, type Dispatcher } from "../../undici.js";
import { yaml } from "../../yaml.js";
import { AppSetError } from "../../errors.js";
import { MANIFEST_ERROR } from "../manifests.js";
import { readBounded, ResponseTooLargeError } from "../../response-limit.js";
import type { HelmAccess } from "./access.js";
import { basicAuthHeader, dispatcherFor } from "../../http-access.js";

/** Default largest index, in bytes: Argo CD's repo-server `--helm-registry-max-index-size` ("1G"). */
export const DEFAULT_HELM_INDEX_MAX_BYTES = 1_000_000_000;
/** The setting that raises it (named in the error). */
export const HELM_INDEX_LIMIT_SETTING = "--helm-index-max-bytes";

/** The chart versions an index lists, by chart name. */
export interface HelmIndex {
  readonly entries: ReadonlyMap<string, readonly string[]>;
}

/** `<repoURL>/index.yaml`, joined as Go's path.Join joins it. */
export function indexURL(repoURL: string): string {
  const u = new URL(repoURL);
  u.pathname = posix.join(u.pathname === "" ? "/" : u.pathname, "index.yaml");
  return u.toString();
}

/** The versions of one chart (Argo CD's `GetEntries`), or Argo CD's error when the index has none. */
export function chartVersions(index: HelmIndex, chart: string): readonly string[] {
  const versions = index.entries.get(chart);
  if (versions === undefined) throw new AppSetError(MANIFEST_ERROR, `chart '${chart}' not found in index`);
  return versions;
}

/** The version of an index entry, as text ("" when it has none). */
function versionOf(entry: unknown): string {
  const v = (entry as { version?: unknown } | null)?.version;
  return typeof v === "string" || typeof v === "number" ? String(v) : "";
}

/** Parses an index file's text. */
export function parseIndex(text: string): HelmIndex {
  let doc: unknown;
  try {
    // Every scalar as text, as Go decodes a version into a string: 1.10 stays "1.10".
    doc = yaml().parse(text, { schema: "failsafe" });
  } catch (err) {
    throw new AppSetError(MANIFEST_ERROR, `error decoding index: ${(err as Error).message}`);
  }
  const raw = (doc as { entries?: unknown } | null)?.entries;
  const entries = new Map<string, string[]>();
  if (raw !== null && typeof raw === "object") {
    for (const [name, list] of Object.entries(raw as Record<string, unknown>)) {
      const versions = Array.isArray(list) ? list.map(versionOf) : [];
      entries.set(name, versions);
    }
  }
  return { entries };
}

/** What fetching an index needs. */
export interface IndexFetch {
  readonly repoURL: string;
  readonly access: HelmAccess;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal | undefined;
  /** Largest index accepted, in bytes (default {@link DEFAULT_HELM_INDEX_MAX_BYTES}). */
  readonly maxBytes?: number | undefined;
}

/** Why a request did not complete, as a short cause. */
function causeOf(err: unknown, timedOut: boolean, timeoutMs: number): string {
  if (timedOut) return `timeout after ${String(timeoutMs / 1000)}s`;
  const e = err as Error & { cause?: { message?: string } };
  return e.cause?.message ?? e.message;
}

/** The index's text, read up to `limitBytes`; past it the body is destroyed (the connection closes). */
async function readIndexBody(body: Dispatcher.ResponseData["body"], url: string, limitBytes: number): Promise<string> {
  try {
    return (await readBounded(body, { source: "Helm repository", url, limitBytes, setting: HELM_INDEX_LIMIT_SETTING })).toString("utf8");
  } catch (err) {
    if (!(err instanceof ResponseTooLargeError)) throw err;
    body.destroy();
    throw new AppSetError(MANIFEST_ERROR, `error loading repo index: ${err.message}`, { cause: err });
  }
}

/** Fetches and parses the repository's index. */
export async function fetchIndex(f: IndexFetch): Promise<HelmIndex> {
  const url = indexURL(f.repoURL);
  const dispatcher = await dispatcherFor(f.access);
  const timeout = AbortSignal.timeout(f.timeoutMs);
  const signal = f.signal === undefined ? timeout : AbortSignal.any([f.signal, timeout]);
  try {
    let text: string;
    try {
      const res = await request(url, { method: "GET", headers: basicAuthHeader(f.access), dispatcher, signal });
      if (res.statusCode !== 200) {
        await res.body.dump();
        const status = `${String(res.statusCode)} ${nodeHttp.STATUS_CODES[res.statusCode] ?? ""}`.trim();
        throw new AppSetError(MANIFEST_ERROR, `error loading repo index: failed to get index: ${status}`);
      }
      text = await readIndexBody(res.body, url, f.maxBytes ?? DEFAULT_HELM_INDEX_MAX_BYTES);
    } catch (err) {
      if (err instanceof AppSetError) throw err;
      const cause = causeOf(err, timeout.aborted, f.timeoutMs);
      throw new AppSetError(MANIFEST_ERROR, `error loading repo index: error making HTTP request: Get "${url}": ${cause}`);
    }
    return parseIndex(text);
  } finally {
    await dispatcher.close();
  }
}
