import { describe, expect, it } from "vitest";
import { parseConfig, type Config, type Env } from "./config.js";

function config(env: Env): { config: Config; warnings: string[] } {
  const r = parseConfig([], env);
  if (r.kind !== "config") throw new Error(`expected a config, got ${JSON.stringify(r)}`);
  return r;
}

describe("Argo CD's Git client and exec settings", () => {
  it("default as in Argo CD: one try, 250ms × 2 up to 5s between tries, 15s per ls-remote, 90s per program", () => {
    expect(config({}).config).toMatchObject({
      gitAttempts: 1,
      gitRetryDurationMs: 250,
      gitRetryFactor: 2,
      gitRetryMaxDurationMs: 5_000,
      gitRequestTimeoutMs: 15_000,
      execTimeoutMs: 90_000,
    });
  });

  it("read Go durations and counts from the environment", () => {
    const env = {
      ARGOCD_GIT_ATTEMPTS_COUNT: "5",
      ARGOCD_GIT_RETRY_DURATION: "1s",
      ARGOCD_GIT_RETRY_FACTOR: "3",
      ARGOCD_GIT_RETRY_MAX_DURATION: "1m",
      ARGOCD_GIT_REQUEST_TIMEOUT: "30s",
      ARGOCD_EXEC_TIMEOUT: "3m",
    };
    expect(config(env).config).toMatchObject({
      gitAttempts: 5,
      gitRetryDurationMs: 1_000,
      gitRetryFactor: 3,
      gitRetryMaxDurationMs: 60_000,
      gitRequestTimeoutMs: 30_000,
      execTimeoutMs: 180_000,
    });
  });

  it("fall back to the default with a warning on a value Argo CD would not take", () => {
    const { config: c, warnings } = config({ ARGOCD_GIT_ATTEMPTS_COUNT: "0", ARGOCD_EXEC_TIMEOUT: "soon" });
    expect(c.gitAttempts).toBe(1);
    expect(c.execTimeoutMs).toBe(90_000);
    expect(warnings).toHaveLength(2);
  });
});
