/**
 * A real Helm chart repository for tests: charts packaged by the real `helm package`, an
 * `index.yaml` made by `helm repo index`, served from a directory by a node:http server on
 * 127.0.0.1 (optionally behind HTTP basic auth, optionally over TLS with client certificates).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ServerOptions as TlsServerOptions } from "node:https";
import { dirname, join, normalize } from "node:path";
import { listenLocal } from "./local-server.js";
import { renderToolsDir } from "../../support/render-tools.js";
import type { TempDirs } from "./git-repos.js";

/** Runs the real helm with a private home. */
function helm(temp: TempDirs, args: readonly string[]): void {
  const home = temp.make("appset-helm-home-");
  const env = { PATH: process.env["PATH"] ?? "", HOME: home, HELM_CACHE_HOME: home, HELM_CONFIG_HOME: home, HELM_DATA_HOME: home };
  execFileSync(join(renderToolsDir(), "helm"), [...args], { env, stdio: ["ignore", "ignore", "pipe"] });
}

/** A chart's files (paths relative to the chart), `Chart.yaml` written from `name` and `version`. */
export type ChartFiles = Record<string, string>;

/** A directory of packaged charts and their index. */
export class HelmRepoDir {
  readonly dir: string;

  constructor(private readonly temp: TempDirs) {
    this.dir = temp.make("appset-helm-repo-");
  }

  /** Packages `name` at `version` with `files` (and a Chart.yaml) and indexes the repository again. */
  add(name: string, version: string, files: ChartFiles): this {
    const src = join(this.temp.make("appset-chart-src-"), name);
    const all = { "Chart.yaml": `apiVersion: v2\nname: ${name}\nversion: ${version}\n`, ...files };
    for (const [path, content] of Object.entries(all)) {
      mkdirSync(dirname(join(src, path)), { recursive: true });
      writeFileSync(join(src, path), content);
    }
    helm(this.temp, ["package", src, "--destination", this.dir]);
    helm(this.temp, ["repo", "index", this.dir]);
    return this;
  }
}

/** A running repository server; `stop` closes it. */
export interface HelmRepoServer {
  readonly url: string;
  /** Requests served, as `METHOD path`. */
  readonly requests: string[];
  stop(): Promise<void>;
}

/** How the server is guarded. */
export interface HelmRepoServerOptions {
  readonly auth?: { username: string; password: string };
  /** TLS options: serve HTTPS on `localhost`. */
  readonly tls?: TlsServerOptions;
}

function authorized(req: IncomingMessage, auth: HelmRepoServerOptions["auth"]): boolean {
  if (auth === undefined) return true;
  return req.headers.authorization === `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString("base64")}`;
}

/** Serves the files of `root` (index.yaml and the archives). */
export async function serveHelmRepo(root: string, opts: HelmRepoServerOptions = {}): Promise<HelmRepoServer> {
  const requests: string[] = [];
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    requests.push(`${req.method ?? ""} ${path}`);
    if (!authorized(req, opts.auth)) {
      res.writeHead(401, { "WWW-Authenticate": 'Basic realm="charts"' }).end();
      return;
    }
    const file = normalize(join(root, decodeURIComponent(path)));
    let body: Buffer;
    try {
      if (!file.startsWith(root)) throw new Error("outside");
      body = readFileSync(file);
    } catch {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "Content-Type": file.endsWith(".yaml") ? "application/yaml" : "application/gzip" }).end(body);
  };
  const server = await listenLocal(handler, opts.tls);
  return { ...server, requests };
}
