import { describe, expect, it } from "vitest";
import { FakeClock } from "../clock/index.js";
import { GitCommandError } from "./exec.js";
import { shorterLimit } from "./reader.js";
import { isTransientGitFailure, retryDelayMs, withGitRetries, type GitRetryPolicy } from "./retry.js";

const ARGO_DEFAULTS: GitRetryPolicy = { attempts: 4, delayMs: 250, factor: 2, maxDelayMs: 5_000 };
const timeout = (): GitCommandError => new GitCommandError("git ls-remote: timed out after 15s", undefined, "timeout");
const refused = (): GitCommandError => new GitCommandError("git ls-remote: fatal: Authentication failed", 128);

/** Runs `fn` under the policy on a fake clock, recording when each try starts. */
async function run(policy: GitRetryPolicy, failures: readonly GitCommandError[]): Promise<{ starts: number[]; result: unknown }> {
  const clock = new FakeClock();
  const t0 = clock.now();
  const starts: number[] = [];
  let n = 0;
  const done = withGitRetries(policy, clock, undefined, () => {
    starts.push(clock.now() - t0);
    const err = failures[n++];
    return err === undefined ? Promise.resolve("refs") : Promise.reject(err);
  }).then(
    (v) => v,
    (e: unknown) => e,
  );
  await clock.advanceAsync(60_000);
  return { starts, result: await done };
}

describe("retries of git ls-remote, as Argo CD's ARGOCD_GIT_ATTEMPTS_COUNT and ARGOCD_GIT_RETRY_*", () => {
  it.each([
    // attempt n waits delay × factor^n, capped by the max duration (0: no cap)
    { name: "the first retry waits the base delay", policy: ARGO_DEFAULTS, attempt: 0, want: 250 },
    { name: "each further one the factor more", policy: ARGO_DEFAULTS, attempt: 3, want: 2_000 },
    { name: "never past the max duration", policy: ARGO_DEFAULTS, attempt: 10, want: 5_000 },
    { name: "a max duration of 0 caps nothing", policy: { ...ARGO_DEFAULTS, maxDelayMs: 0 }, attempt: 10, want: 256_000 },
  ])("$name", ({ policy, attempt, want }) => {
    expect(retryDelayMs(policy, attempt)).toBe(want);
  });

  it("tries a timed-out ls-remote again after the growing waits, and answers once one succeeds", async () => {
    const { starts, result } = await run(ARGO_DEFAULTS, [timeout(), timeout(), timeout()]);
    expect(starts).toEqual([0, 250, 750, 1_750]);
    expect(result).toBe("refs");
  });

  it("tries another failure again at once, and reports the last failure when every try failed", async () => {
    const { starts, result } = await run({ ...ARGO_DEFAULTS, attempts: 2 }, [refused(), refused()]);
    expect(starts).toEqual([0, 0]);
    expect(result).toBeInstanceOf(GitCommandError);
  });

  it("tries once by default (ARGOCD_GIT_ATTEMPTS_COUNT unset is 1)", async () => {
    const { starts } = await run({ ...ARGO_DEFAULTS, attempts: 1 }, [timeout()]);
    expect(starts).toEqual([0]);
  });

  it("never retries what the caller aborted", async () => {
    const aborted = new GitCommandError("git ls-remote: aborted", undefined, "aborted");
    const { starts } = await run(ARGO_DEFAULTS, [aborted]);
    expect(starts).toEqual([0]);
  });

  it.each([
    { name: "a time limit", err: timeout(), want: true },
    {
      name: "a 503 answer",
      err: new GitCommandError("git ls-remote: fatal: unable to access 'x': The requested URL returned error: 503", 128),
      want: true,
    },
    { name: "a reset connection", err: new GitCommandError("git ls-remote: fatal: Connection reset by peer", 128), want: true },
    { name: "refused credentials", err: refused(), want: false },
  ])("counts $name as transient: $want", ({ err, want }) => {
    expect(isTransientGitFailure(err)).toBe(want);
  });

  it.each([
    // ARGOCD_GIT_REQUEST_TIMEOUT against --repo-server-timeout-seconds; 0 or unset is no limit
    { a: 60_000, b: 15_000, want: 15_000 },
    { a: 5_000, b: 15_000, want: 5_000 },
    { a: undefined, b: 15_000, want: 15_000 },
    { a: 60_000, b: 0, want: 60_000 },
    { a: undefined, b: 0, want: undefined },
  ])("bounds an ls-remote by the shorter of $a and $b ms", ({ a, b, want }) => {
    expect(shorterLimit(a, b)).toBe(want);
  });
});
