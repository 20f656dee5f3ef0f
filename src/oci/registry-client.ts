/**
 * A client of one OCI registry repository over the distribution API (`/v2/…`), reading as Argo
 * CD's client (oras-go) reads: a manifest by tag or digest, the tag list (every page), a blob.
 * Authentication answers the registry's challenge: `Basic` with the repository's username and
 * password, `Bearer` with a token fetched from the challenge's realm (basic auth when there are
 * credentials, anonymous otherwise). `plainHttp` (the Secret's `insecureOCIForceHttp`) speaks HTTP;
 * otherwise HTTPS with the repository's TLS settings. Every request has a time limit; a manifest is
 * read up to 4 MiB, a blob up to the size its descriptor gives, and its digest is checked.
 *
 * I/O boundary: HTTP (undici).
 */
import { createHash } from "node:crypto";
import { lookup } from "node:dns/promises";
import { nodeHttp } from "../node-http.js";
import { request, type Dispatcher } from "../undici.js";
import { AppSetError, errorMessage } from "../errors.js";
import { basicAuthHeader, dispatcherFor, type HttpAccess } from "../http-access.js";
import { readBounded, ResponseTooLargeError } from "../response-limit.js";
import { formatValue } from "../template/go/format.js";
import type { GoValue } from "../template/go/value.js";
import { realmRefusal, type AddressLookup } from "./realm.js";
import { referenceText, type OciRepository } from "./reference.js";

/** The reason of every error talking to a registry. */
export const OCI_REGISTRY_REASON = "OciRegistryError";

/** A registry that answered with an error, or could not be reached. */
export class OciRegistryError extends AppSetError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(OCI_REGISTRY_REASON, message, options);
  }
}

/** How one registry is reached: {@link HttpAccess} and plain HTTP. */
export interface RegistryAccess extends HttpAccess {
  /** Speak HTTP, not HTTPS (`insecureOCIForceHttp`). */
  readonly plainHttp: boolean;
}

/** Largest manifest read, in bytes (Argo CD's limit). */
export const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;
/** Largest tag list page read, in bytes. */
const MAX_TAGS_PAGE_BYTES = 4 * 1024 * 1024;
/** Most tag list pages followed. */
const MAX_TAG_PAGES = 1000;
/** Most redirects one request follows. */
const MAX_REDIRECTS = 10;

const MANIFEST_ACCEPT = [
  "application/vnd.oci.image.manifest.v1+json",
  "application/vnd.oci.image.index.v1+json",
  "application/vnd.docker.distribution.manifest.v2+json",
  "application/vnd.docker.distribution.manifest.list.v2+json",
  "application/vnd.oci.artifact.manifest.v1+json",
].join(", ");

/** A manifest as fetched: its digest and text. */
export interface FetchedManifest {
  readonly digest: string;
  readonly text: string;
}

/** What the client needs besides the repository. */
export interface RegistryClientOptions {
  readonly access: RegistryAccess;
  /** Time limit of one request, in ms. */
  readonly timeoutMs: number;
  /** Resolves a token realm's host (default: the system resolver). */
  readonly lookup?: AddressLookup;
}

/** Every address of a host name, from the system resolver. */
async function lookupAll(host: string): Promise<readonly string[]> {
  return (await lookup(host, { all: true })).map((a) => a.address);
}

type Body = Dispatcher.ResponseData["body"];

/** The `WWW-Authenticate` challenge: its scheme and parameters. */
export function parseChallenge(header: string): { scheme: string; params: Record<string, string> } {
  const m = /^\s*(\S+)\s*(.*)$/.exec(header);
  const params: Record<string, string> = {};
  for (const p of (m?.[2] ?? "").matchAll(/([a-zA-Z_]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^,\s]*))/g)) {
    params[p[1]!.toLowerCase()] = p[2] === undefined ? (p[3] ?? "") : p[2].replace(/\\(.)/g, "$1");
  }
  return { scheme: (m?.[1] ?? "").toLowerCase(), params };
}

/** The next page of a tag list from its `Link` header, resolved against the request URL. */
export function nextLink(link: string | undefined, base: string): string | undefined {
  const m = link === undefined ? null : /<([^>]*)>\s*;\s*rel="?next"?/.exec(link);
  return m === null ? undefined : new URL(m[1]!, base).toString();
}

/** A header's first value as text. */
function headerText(v: string | string[] | undefined): string {
  return typeof v === "string" ? v : (v?.[0] ?? "");
}

/** The token of a token server's answer (a non-empty `access_token`, else `token`, as oras-go reads it), if any. */
export function tokenOf(text: string): string | undefined {
  try {
    const doc = JSON.parse(text) as { token?: unknown; access_token?: unknown };
    for (const token of [doc.access_token, doc.token]) if (typeof token === "string" && token !== "") return token;
    return undefined;
  } catch {
    return undefined;
  }
}

/** A JSON scalar as Go's %v prints it. */
function scalarText(v: unknown): string {
  return typeof v === "string" || typeof v === "number" || typeof v === "boolean" ? String(v) : "";
}

/** The error text of a registry's error answer, as oras-go writes it. */
export function errorResponseText(method: string, url: string, status: number, body: string): string {
  let detail = nodeHttp.STATUS_CODES[status] ?? "";
  try {
    const errs = (JSON.parse(body) as { errors?: unknown }).errors;
    if (Array.isArray(errs) && errs.length > 0) {
      detail = errs
        .map((e: { code?: unknown; message?: unknown; detail?: unknown }) => {
          const head = `${scalarText(e.code).toLowerCase()}: ${scalarText(e.message)}`;
          return e.detail === undefined || e.detail === null ? head : `${head}: ${formatValue(e.detail as GoValue)}`;
        })
        .join("; ");
    }
  } catch {
    // Not JSON: the status text stands.
  }
  return `${method} ${JSON.stringify(url)}: response status code ${String(status)}: ${detail}`;
}

/** A client of one repository (see the module comment). */
export class RegistryClient {
  private dispatcher: Promise<Dispatcher> | undefined;
  private token: string | undefined;

  constructor(
    private readonly repo: OciRepository,
    private readonly opts: RegistryClientOptions,
  ) {}

  private base(): string {
    return `${this.opts.access.plainHttp ? "http" : "https"}://${this.repo.registry}/v2/${this.repo.repository}`;
  }

  /** One GET, its failure worded with the URL and the cause (the time limit when it was hit). */
  private async get(url: string, headers: Record<string, string>, signal: AbortSignal | undefined): Promise<Dispatcher.ResponseData> {
    this.dispatcher ??= dispatcherFor(this.opts.access);
    const dispatcher = await this.dispatcher;
    const timeout = AbortSignal.timeout(this.opts.timeoutMs);
    try {
      return await request(url, {
        method: "GET",
        headers,
        dispatcher,
        signal: signal === undefined ? timeout : AbortSignal.any([signal, timeout]),
      });
    } catch (err) {
      const why = timeout.aborted ? `timeout after ${String(this.opts.timeoutMs / 1000)}s` : (err as Error).message;
      throw new OciRegistryError(`GET ${JSON.stringify(url)}: ${why}`, { cause: err });
    }
  }

  /** One request: the registry's challenge answered once, redirects followed (credentials only on the registry's origin). */
  private async send(url: string, accept: string | undefined, signal: AbortSignal | undefined): Promise<Dispatcher.ResponseData> {
    const origin = new URL(url).origin;
    let current = url;
    let challenged = false;
    for (let hop = 0; hop <= MAX_REDIRECTS;) {
      const own = new URL(current).origin === origin;
      const headers: Record<string, string> = accept === undefined ? {} : { accept };
      if (own && this.token !== undefined) headers["authorization"] = this.token;
      const res = await this.get(current, headers, signal);
      const location = res.headers["location"];
      if (res.statusCode === 401 && own && !challenged) {
        challenged = true;
        await res.body.dump();
        // oras-go resolves a manifest with HEAD, and names that request in a failed challenge.
        const method = accept === MANIFEST_ACCEPT ? "HEAD" : "GET";
        await this.answerChallenge(headerText(res.headers["www-authenticate"]), signal).catch((err: unknown) => {
          throw new OciRegistryError(`${method} ${JSON.stringify(current)}: ${errorMessage(err)}`, { cause: err });
        });
      } else if (res.statusCode >= 300 && res.statusCode < 400 && location !== undefined) {
        await res.body.dump();
        current = new URL(headerText(location), current).toString();
        hop++;
      } else return res;
    }
    throw new OciRegistryError(`GET ${JSON.stringify(url)}: stopped after ${String(MAX_REDIRECTS)} redirects`);
  }

  /** Sets the authorization header the challenge asks for. */
  private async answerChallenge(header: string, signal: AbortSignal | undefined): Promise<void> {
    const { scheme, params } = parseChallenge(header);
    const basic = basicAuthHeader(this.opts.access)["authorization"];
    if (scheme === "basic") this.token = basic;
    if (scheme !== "bearer" || params["realm"] === undefined) return;
    const refusal = await realmRefusal(params["realm"], new URL(this.base()), this.opts.lookup ?? lookupAll);
    if (refusal !== undefined) throw new OciRegistryError(refusal);
    const tokenURL = new URL(params["realm"]);
    if (params["service"] !== undefined) tokenURL.searchParams.set("service", params["service"]);
    tokenURL.searchParams.set("scope", params["scope"] ?? `repository:${this.repo.repository}:pull`);
    tokenURL.searchParams.sort(); // Go encodes a query's keys in order
    const url = tokenURL.toString();
    const res = await this.get(url, basic === undefined ? {} : { authorization: basic }, signal);
    const text = await this.readText(res.body, url, MAX_MANIFEST_BYTES);
    if (res.statusCode !== 200) throw new OciRegistryError(errorResponseText("GET", url, res.statusCode, text));
    const token = tokenOf(text);
    if (token === undefined) throw new OciRegistryError(`GET ${JSON.stringify(url)}: empty token returned`);
    this.token = `Bearer ${token}`;
  }

  private async readText(body: Body, url: string, limitBytes: number): Promise<string> {
    try {
      return (await readBounded(body, { source: "OCI registry", url, limitBytes, setting: "the registry's answer" })).toString("utf8");
    } catch (err) {
      body.destroy();
      if (err instanceof ResponseTooLargeError) throw new OciRegistryError(err.message, { cause: err });
      throw new OciRegistryError(`GET ${JSON.stringify(url)}: ${(err as Error).message}`, { cause: err });
    }
  }

  /** The manifest a tag or digest names; `<ref>: not found` when the registry has none. */
  async manifest(reference: string, signal?: AbortSignal): Promise<FetchedManifest> {
    const url = `${this.base()}/manifests/${reference}`;
    const res = await this.send(url, MANIFEST_ACCEPT, signal);
    if (res.statusCode === 404) {
      await res.body.dump();
      throw new OciRegistryError(`${referenceText(this.repo, reference)}: not found`);
    }
    const text = await this.readText(res.body, url, MAX_MANIFEST_BYTES);
    if (res.statusCode !== 200) throw new OciRegistryError(errorResponseText("GET", url, res.statusCode, text));
    const digest = `sha256:${createHash("sha256").update(text, "utf8").digest("hex")}`;
    if (reference.startsWith("sha256:") && reference !== digest)
      throw new OciRegistryError(`${referenceText(this.repo, reference)}: mismatch digest: ${digest}`);
    return { digest, text };
  }

  /** Every tag of the repository, page by page. */
  async tags(signal?: AbortSignal): Promise<string[]> {
    const out: string[] = [];
    let url: string | undefined = `${this.base()}/tags/list`;
    for (let page = 0; url !== undefined; page++) {
      if (page >= MAX_TAG_PAGES) throw new OciRegistryError(`failed to get tags: more than ${String(MAX_TAG_PAGES)} pages`);
      const res = await this.send(url, undefined, signal);
      const text = await this.readText(res.body, url, MAX_TAGS_PAGE_BYTES);
      if (res.statusCode !== 200) throw new OciRegistryError(errorResponseText("GET", url, res.statusCode, text));
      const tags = (JSON.parse(text) as { tags?: unknown }).tags;
      if (Array.isArray(tags)) out.push(...tags.filter((t): t is string => typeof t === "string"));
      const link = res.headers["link"];
      url = nextLink(typeof link === "string" ? link : link?.[0], url);
    }
    return out;
  }

  /** A blob's bytes, at most `size` (its descriptor's), its sha256 digest checked. */
  async blob(digest: string, size: number, signal?: AbortSignal): Promise<Buffer> {
    const url = `${this.base()}/blobs/${digest}`;
    const res = await this.send(url, undefined, signal);
    if (res.statusCode !== 200) {
      const text = await this.readText(res.body, url, MAX_MANIFEST_BYTES);
      throw new OciRegistryError(errorResponseText("GET", url, res.statusCode, text));
    }
    let bytes;
    try {
      bytes = await readBounded(res.body, { source: "OCI registry", url, limitBytes: size, setting: "the layer's size" });
    } catch (err) {
      res.body.destroy();
      throw new OciRegistryError(`${digest}: the blob is larger than its descriptor's ${String(size)} bytes`, { cause: err });
    }
    const got = `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
    if (digest.startsWith("sha256:") && got !== digest) throw new OciRegistryError(`${digest}: mismatch digest: ${got}`);
    return bytes;
  }

  /** Closes the connections. */
  async close(): Promise<void> {
    if (this.dispatcher !== undefined) await (await this.dispatcher).close();
  }
}
