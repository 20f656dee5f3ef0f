/**
 * Authenticity checks of webhook requests, on the raw body before anything is parsed: HMAC-SHA256
 * signatures (GitHub, Bitbucket Server and Cloud, Gitea), shared tokens (GitLab, Bitbucket Cloud's
 * hook UUID) and basic auth (Azure DevOps). Every comparison runs in constant time. A provider with
 * no secret configured refuses every request: an unsigned event is never trusted.
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";

/** The outcome of a check: 401 for missing or wrong credentials, 403 when none are configured. */
export type CheckResult = { readonly ok: true } | { readonly ok: false; readonly status: 401 | 403; readonly message: string };

const OK: CheckResult = { ok: true };

/** The hex HMAC-SHA256 of `body` under `key`. */
export function hmacSha256Hex(key: string, body: Buffer): string {
  return createHmac("sha256", key).update(body).digest("hex");
}

/** Constant-time string equality (both sides hashed first, so lengths do not leak either). */
export function safeEqual(a: string, b: string): boolean {
  const ha = createHash("sha256").update(a).digest();
  const hb = createHash("sha256").update(b).digest();
  return timingSafeEqual(ha, hb);
}

function unconfigured(what: string): CheckResult {
  return { ok: false, status: 403, message: `no ${what} is configured, so these webhooks are refused` };
}

/**
 * Checks an HMAC-SHA256 signature header: `prefix` + hex digest (`sha256=` for GitHub and
 * Bitbucket, empty for Gitea). `header` names the header in messages.
 */
export function checkHmac(opts: {
  secret: string | undefined;
  value: string | undefined;
  body: Buffer;
  header: string;
  prefix: string;
}): CheckResult {
  if (opts.secret === undefined) return unconfigured(`secret for ${opts.header}`);
  if (opts.value === undefined || opts.value === "") return { ok: false, status: 401, message: `missing ${opts.header} header` };
  const expected = opts.prefix + hmacSha256Hex(opts.secret, opts.body);
  return safeEqual(opts.value.trim().toLowerCase(), expected)
    ? OK
    : { ok: false, status: 401, message: `${opts.header} does not match the payload` };
}

/** Checks a shared token sent as a header (GitLab's `X-Gitlab-Token`, Bitbucket's `X-Hook-UUID`). */
export function checkToken(opts: { secret: string | undefined; value: string | undefined; header: string }): CheckResult {
  if (opts.secret === undefined) return unconfigured(`value for ${opts.header}`);
  if (opts.value === undefined || opts.value === "") return { ok: false, status: 401, message: `missing ${opts.header} header` };
  return safeEqual(opts.value.trim(), opts.secret) ? OK : { ok: false, status: 401, message: `${opts.header} does not match` };
}

/** Checks HTTP basic auth against the configured username and password. */
export function checkBasicAuth(
  expected: { username: string; password: string } | undefined,
  authorization: string | undefined,
): CheckResult {
  if (expected === undefined) return unconfigured("username and password");
  const m = /^basic\s+(\S+)\s*$/i.exec(authorization ?? "");
  if (m === null) return { ok: false, status: 401, message: "missing basic auth credentials" };
  const decoded = Buffer.from(m[1]!, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  const user = colon < 0 ? decoded : decoded.slice(0, colon);
  const pass = colon < 0 ? "" : decoded.slice(colon + 1);
  const good = safeEqual(user, expected.username) && safeEqual(pass, expected.password);
  return good ? OK : { ok: false, status: 401, message: "basic auth credentials do not match" };
}

/** Every check must pass; the first failure is the answer. No checks at all means unconfigured. */
export function allOf(checks: readonly CheckResult[], what: string): CheckResult {
  if (checks.length === 0) return unconfigured(what);
  return checks.find((c) => !c.ok) ?? OK;
}
