import { describe, expect, it } from "vitest";
import { parseConfig } from "../config/index.js";
import { DEFAULT_WORKQUEUE_RATE_LIMIT } from "../manager/index.js";
import { controllerCommand, workqueueRateLimitOf } from "./controller.js";
import type { ControllerIO } from "./process.js";

function io(env: Readonly<Record<string, string | undefined>> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const handlers: Array<(s: string) => void> = [];
  const value: ControllerIO = {
    out: (s) => out.push(s),
    err: (s) => err.push(s),
    env,
    onSignal: (h) => {
      handlers.push(h);
      return () => handlers.splice(handlers.indexOf(h), 1);
    },
  };
  return { value, out, err, handlers };
}

describe("appset controller", () => {
  it.each([
    {
      name: "prints the flag reference for --help and exits 0",
      args: ["--help"],
      env: {},
      code: 0,
      out: "Usage: appset controller",
      err: "",
    },
    {
      name: "rejects an unknown --policy with Argo CD's message and exits 1",
      args: ["--policy", "bogus"],
      env: {},
      code: 1,
      out: "",
      err: "Policy value can be: sync, create-only, create-update, create-delete, default value: sync",
    },
    {
      name: "rejects an unknown policy from the environment too",
      args: [],
      env: { ARGOCD_APPLICATIONSET_CONTROLLER_POLICY: "everything" },
      code: 1,
      out: "",
      err: "Policy value can be: sync, create-only, create-update, create-delete, default value: sync",
    },
  ])("$name", async ({ args, env, code, out, err }) => {
    const t = io(env);
    expect(await controllerCommand(args, t.value)).toBe(code);
    expect(t.out.join("")).toContain(out);
    expect(t.err.join("")).toContain(err);
    expect(t.handlers).toHaveLength(0);
  });

  it.each([
    // name; a flag; what its help line shows after the flag
    {
      name: "a string flag shows its type and quoted default",
      flag: "--metrics-addr",
      rest: /^--metrics-addr string {3,}The address the metric endpoint binds to\. \(default ":8080"\)$/,
    },
    {
      name: "an int flag shows its type and default",
      flag: "--concurrent-reconciliations",
      rest: /^--concurrent-reconciliations int {3,}How many ApplicationSets are reconciled at once\. \(default 10\) \[env \S+\]$/,
    },
    {
      name: "a duration flag shows its default in Go syntax",
      flag: "--cache-sync-period",
      rest: /^--cache-sync-period duration {3,}.* \(default 10h0m0s\) \[env \S+\]$/,
    },
    { name: "a list flag shows strings", flag: "--applicationset-namespaces", rest: /^--applicationset-namespaces strings {3,}Namespaces/ },
    {
      name: "a boolean flag shows no placeholder and no false default",
      flag: "--dry-run",
      rest: /^--dry-run {3,}Send every write with server-side dry run: nothing is persisted\. \[env \S+\]$/,
    },
    {
      name: "an empty string default is not shown",
      flag: "--policy",
      rest: /^--policy string {3,}How Applications .*\(empty means sync\)\. \[env \S+\]$/,
    },
    {
      name: "the namespace flag shows its shorthand",
      flag: "-n, --namespace",
      rest: /^-n, --namespace string {3,}The controller's namespace/,
    },
  ])("help: $name", async ({ flag, rest }) => {
    const t = io();
    expect(await controllerCommand(["--help"], t.value)).toBe(0);
    const line = t.out
      .join("")
      .split("\n")
      .find((l) => l.trimStart().startsWith(`${flag} `));
    expect(line?.trimStart()).toMatch(rest);
  });

  it("aligns every flag's description in one column, as cobra does", async () => {
    const t = io();
    await controllerCommand(["--help"], t.value);
    const rows = t.out
      .join("")
      .split("\n")
      .filter((l) => /^ {2}(-\w, | {4})--/.test(l));
    const columns = new Set(rows.map((l) => /^\s*\S.*?\S {3,}(?=\S)/.exec(l)![0].length));
    expect(rows.length).toBeGreaterThan(30);
    expect([...columns]).toHaveLength(1);
  });
});

describe("workqueueRateLimitOf", () => {
  it("hands the --wq-* flags and environment variables to the controller's queue", () => {
    const r = parseConfig(["--wq-cooldown=5m", "--wq-backoff-factor=2", "--wq-bucket-qps=20"], {
      ARGOCD_APPLICATIONSET_CONTROLLER_WORKQUEUE_BASE_DELAY_NS: "10000000",
      ARGOCD_APPLICATIONSET_CONTROLLER_WORKQUEUE_MAX_DELAY_NS: "60000000000",
      ARGOCD_APPLICATIONSET_CONTROLLER_WORKQUEUE_BUCKET_SIZE: "7",
    });
    if (r.kind !== "config") throw new Error(JSON.stringify(r));
    expect(workqueueRateLimitOf(r.config)).toEqual({
      bucketSize: 7,
      bucketQps: 20,
      cooldownMs: 300_000,
      baseDelayMs: 10,
      maxDelayMs: 60_000,
      backoffFactor: 2,
    });
  });

  it("gives Argo CD's defaults when nothing is set", () => {
    const r = parseConfig([], {});
    if (r.kind !== "config") throw new Error(JSON.stringify(r));
    expect(workqueueRateLimitOf(r.config)).toEqual(DEFAULT_WORKQUEUE_RATE_LIMIT);
  });
});
