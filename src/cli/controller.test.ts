import { describe, expect, it } from "vitest";
import { controllerCommand } from "./controller.js";
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
    { name: "prints the flag reference for --help and exits 0", args: ["--help"], env: {}, code: 0, out: "Usage: appset controller", err: "" },
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
});
