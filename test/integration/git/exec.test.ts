import { describe, expect, it } from "vitest";
import { GIT_ERROR_REASON, GitCommandError, runGit } from "../../../src/git/exec.js";
import { gitEnv } from "../support/git-repos.js";

describe("runGit", () => {
  it("resolves with stdout and feeds stdin", async () => {
    const out = await runGit(gitEnv(), ["hash-object", "--stdin"], { input: "hello\n" });
    expect(out.toString("utf8").trim()).toBe("ce013625030ba8dba906f756967f9e9ca394464a");
  });

  it("rejects a non-zero exit with the verb, git's stderr and the exit code, secrets masked", async () => {
    const err = await runGit(gitEnv(), ["-c", "x.y=1", "ls-remote", "--", "/nonexistent/s3cret-repo"], { secrets: ["s3cret"] }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(GitCommandError);
    expect(err).toMatchObject({ reason: GIT_ERROR_REASON, failure: "exit", exitCode: 128 });
    expect((err as Error).message).toMatch(/^git ls-remote: .*\*\*\*-repo/);
    expect((err as Error).message).not.toContain("s3cret");
  });

  it("rejects at once, running nothing, when the signal has already aborted", async () => {
    const err = await runGit(gitEnv(), ["version"], { signal: AbortSignal.abort() }).catch((e: unknown) => e);
    expect(err).toMatchObject({ reason: GIT_ERROR_REASON, failure: "aborted", message: "git version: aborted" });
  });

  it("kills a command whose output passes maxBuffer", async () => {
    const err = await runGit(gitEnv(), ["cat-file", "--batch"], { input: "x".repeat(1000), maxBuffer: 10 }).catch((e: unknown) => e);
    expect(err).toMatchObject({ failure: "output", message: "git cat-file: output larger than 10 bytes" });
  });

  it("rejects as a spawn failure when the working directory does not exist", async () => {
    const err = await runGit(gitEnv(), ["version"], { cwd: "/nonexistent/appset-dir" }).catch((e: unknown) => e);
    expect(err).toMatchObject({ reason: GIT_ERROR_REASON, failure: "spawn" });
  });
});
