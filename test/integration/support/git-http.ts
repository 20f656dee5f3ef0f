/**
 * git's own smart-HTTP backend (`git http-backend`) behind a node:http CGI bridge on 127.0.0.1,
 * optionally requiring HTTP basic auth, optionally over TLS (with client certificates): real
 * remote repositories for tests.
 */
import { spawn } from "node:child_process";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ServerOptions as TlsServerOptions } from "node:https";
import { gitEnv } from "./git-repos.js";
import { listenLocal } from "./local-server.js";

/** A running server; `stop` closes it. */
export interface GitHttpServer {
  readonly url: string;
  /** Requests served, by path (for asserting round-trips). */
  readonly requests: string[];
  /** The Authorization header of each request ("" when none), in order. */
  readonly authorizations: string[];
  stop(): Promise<void>;
}

function authorized(req: IncomingMessage, auth: { username: string; password: string } | undefined): boolean {
  if (auth === undefined) return true;
  const header = req.headers.authorization ?? "";
  const want = `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString("base64")}`;
  return header === want;
}

function cgi(root: string, req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? "/", "http://localhost");
  const child = spawn("git", ["http-backend"], {
    env: {
      ...gitEnv(),
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: "1",
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.slice(1),
      REQUEST_METHOD: req.method ?? "GET",
      CONTENT_TYPE: req.headers["content-type"] ?? "",
      GIT_PROTOCOL: String(req.headers["git-protocol"] ?? ""),
      HTTP_CONTENT_ENCODING: String(req.headers["content-encoding"] ?? ""),
      REMOTE_ADDR: "127.0.0.1",
    },
  });
  req.pipe(child.stdin);
  let head = Buffer.alloc(0);
  let headersDone = false;
  child.stdout.on("data", (chunk: Buffer) => {
    if (headersDone) {
      res.write(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf("\r\n\r\n");
    if (end < 0) return;
    headersDone = true;
    let status = 200;
    for (const line of head.subarray(0, end).toString("utf8").split("\r\n")) {
      const i = line.indexOf(":");
      const k = line.slice(0, i).trim();
      const v = line.slice(i + 1).trim();
      if (k.toLowerCase() === "status") status = Number.parseInt(v, 10);
      else res.setHeader(k, v);
    }
    res.statusCode = status;
    res.write(head.subarray(end + 4));
  });
  child.on("close", () => res.end());
}

/** How the server is reached and guarded. */
export interface GitHttpOptions {
  /** TLS options (key, cert, ca, requestCert): serve HTTPS on `localhost`. */
  readonly tls?: TlsServerOptions;
  /**
   * Answer a request without valid credentials with 404 and no challenge, as some hosts do
   * (default: 401 with a Basic challenge).
   */
  readonly noChallenge?: boolean;
}

/** Serves the bare repositories under `root` at http://127.0.0.1:<port>/<name> (https://localhost:<port> with TLS). */
export async function serveGitHttp(
  root: string,
  auth?: { username: string; password: string },
  opts: GitHttpOptions = {},
): Promise<GitHttpServer> {
  const requests: string[] = [];
  const authorizations: string[] = [];
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    requests.push(`${req.method ?? ""} ${req.url ?? ""}`);
    authorizations.push(req.headers.authorization ?? "");
    if (!authorized(req, auth)) {
      if (opts.noChallenge === true) res.writeHead(404).end();
      else res.writeHead(401, { "WWW-Authenticate": 'Basic realm="git"' }).end();
      return;
    }
    cgi(root, req, res);
  };
  const server = await listenLocal(handler, opts.tls);
  return { ...server, requests, authorizations };
}
