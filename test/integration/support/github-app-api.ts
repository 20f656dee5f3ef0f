/**
 * A GitHub API stand-in for GitHub App token exchanges, over HTTPS on 127.0.0.1 (`listenLocal`):
 * `POST /api/v3/app/installations/{id}/access_tokens` answers an installation token when the App's
 * JWT verifies against the App's public key, 401 otherwise. It records each exchange as
 * `appId/installationId`.
 */
import { createPublicKey, createVerify } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ServerOptions as TlsServerOptions } from "node:https";
import { listenLocal } from "./local-server.js";

/** The running stand-in; `port` is where it listens, under any host name. */
export interface GithubAppApi {
  readonly port: number;
  readonly exchanges: string[];
  stop(): Promise<void>;
}

function verified(req: IncomingMessage, publicKeyPem: string): { iss: unknown } | undefined {
  const jwt = (req.headers.authorization ?? "").replace(/^Bearer /, "");
  const [h = "", b = "", sig = ""] = jwt.split(".");
  const ok = createVerify("RSA-SHA256").update(`${h}.${b}`).verify(createPublicKey(publicKeyPem), Buffer.from(sig, "base64url"));
  return ok ? (JSON.parse(Buffer.from(b, "base64url").toString("utf8")) as { iss: unknown }) : undefined;
}

/** Serves the token exchange over TLS with `tls` (its certificate, and client certificate checks if asked). */
export async function serveGithubAppApi(o: { publicKeyPem: string; token: string; tls: TlsServerOptions }): Promise<GithubAppApi> {
  const exchanges: string[] = [];
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const m = /^\/api\/v3\/app\/installations\/(\d+)\/access_tokens$/.exec(req.url ?? "");
    const claims = verified(req, o.publicKeyPem);
    if (claims === undefined || req.method !== "POST" || m === null) {
      res.writeHead(401, { "Content-Type": "application/json" }).end('{"message":"Bad credentials"}');
      return;
    }
    exchanges.push(`${String(claims.iss)}/${m[1]!}`);
    const expires = new Date(Date.now() + 3_600_000).toISOString();
    res.writeHead(201, { "Content-Type": "application/json" }).end(JSON.stringify({ token: o.token, expires_at: expires }));
  };
  const server = await listenLocal(handler, o.tls);
  return { port: Number(new URL(server.url).port), exchanges, stop: () => server.stop() };
}
