import { describe, expect, it } from "vitest";
import type { KubeObject } from "../../../kube/index.js";
import { HealthScriptError, HealthScriptMessage, HealthScriptReason, runHealthScript } from "./run.js";

const rollout: KubeObject = {
  apiVersion: "argoproj.io/v1alpha1",
  kind: "Rollout",
  metadata: { name: "web", namespace: "shop", generation: 3, labels: { app: "web" } },
  spec: { replicas: 3, paused: false, weights: [0.5, 1], strategy: { canary: { steps: [{ setWeight: 20 }, { pause: {} }] } } },
  status: { observedGeneration: "3", readyReplicas: 3, message: null, conditions: [{ type: "Available", status: "True" }] },
};

/** The message the script returns. */
const said = (script: string, obj: KubeObject = rollout): string | undefined => runHealthScript(script, obj)?.message;

/** The error the script ends with. */
function failure(script: string, options: Parameters<typeof runHealthScript>[2] = {}): HealthScriptError {
  try {
    runHealthScript(script, rollout, options);
  } catch (err) {
    if (err instanceof HealthScriptError) return err;
    throw err;
  }
  throw new Error("the script did not fail");
}

describe("the live object a Lua health script sees", () => {
  it.each([
    // an expression over obj, and what tostring gives for it
    { name: "integers print as integers", expr: "obj.spec.replicas", want: "3" },
    { name: "other numbers as floats", expr: "obj.spec.weights[1]", want: "0.5" },
    {
      name: "arrays are 1-based sequences",
      expr: "#obj.spec.strategy.canary.steps .. obj.spec.strategy.canary.steps[1].setWeight",
      want: "220",
    },
    { name: "booleans stay booleans", expr: "obj.spec.paused == false", want: "true" },
    { name: "strings stay strings", expr: "obj.status.observedGeneration .. obj.metadata.labels.app", want: "3web" },
    { name: "null is nil", expr: "obj.status.message == nil", want: "true" },
    { name: "an absent field is nil", expr: "obj.spec.nothing", want: "nil" },
    { name: "an empty map is an empty table", expr: "next(obj.spec.strategy.canary.steps[2].pause)", want: "nil" },
    {
      name: "ipairs walks an array",
      expr: "(function() local n = 0 for _, c in ipairs(obj.status.conditions) do n = n + 1 end return n end)()",
      want: "1",
    },
  ])("$name", ({ expr, want }) => {
    expect(said(`return {status = "Healthy", message = tostring(${expr})}`)).toBe(want);
  });
});

describe("what a Lua health script returns", () => {
  it("returns the status and message of its table", () => {
    expect(runHealthScript('hs = {}\nhs.status = "Progressing"\nhs.message = "Waiting"\nreturn hs', rollout)).toEqual({
      status: "Progressing",
      message: "Waiting",
    });
  });

  it("leaves out an empty message", () => {
    expect(runHealthScript('return {status = "Healthy", message = ""}', rollout)).toEqual({ status: "Healthy" });
  });

  it.each([
    { name: "a status that is no health code", script: 'return {status = "Fine"}' },
    { name: "no status", script: 'return {message = "x"}' },
    { name: "a status that is a number", script: "return {status = 1}" },
  ])("is Unknown with Argo CD's message for $name", ({ script }) => {
    expect(runHealthScript(script, rollout)).toEqual({ status: "Unknown", message: HealthScriptMessage.InvalidStatus });
  });

  it.each([
    { name: "a string", script: 'return "Healthy"', type: "string" },
    { name: "a number", script: "return 5", type: "number" },
  ])("fails with Argo CD's message when it returns $name", ({ script, type }) => {
    const err = failure(script);
    expect(err.reason).toBe(HealthScriptReason.InvalidResult);
    expect(err.message).toBe(`expect table output from Lua script, not ${type}`);
  });

  // Nothing, a bare return, nil, and nil as the last of several results.
  it.each(["local x = 1", "local hs = {}\nreturn", "return nil", 'return {status = "Healthy"}, nil'])(
    "gives no health, as Argo CD, when the script is %j",
    (script) => {
      expect(runHealthScript(script, rollout)).toBeUndefined();
    },
  );

  it("takes the last of several results", () => {
    expect(runHealthScript('return 1, {status = "Suspended"}', rollout)?.status).toBe("Suspended");
  });
});

describe("a failing Lua health script", () => {
  it.each([
    {
      name: "a runtime error names the line",
      script: "local x = obj.spec.missing.field",
      message: "<string>:1: attempt to index a nil value (field 'missing')",
    },
    { name: "error() with a string", script: 'error("broken")', message: "<string>:1: broken" },
    { name: "error() with a table", script: "error({})", message: "(error object is a table value)" },
    { name: "a syntax error", script: "return {status = }", message: "<string>:1: unexpected symbol near '}'" },
  ])("fails on $name", ({ script, message }) => {
    const err = failure(script);
    expect(err.reason).toBe(HealthScriptReason.Failed);
    expect(err.message).toBe(message);
  });
});

describe("the sandbox of a Lua health script", () => {
  it.each([
    { name: "io", expr: "io" },
    { name: "os", expr: "os" },
    { name: "require", expr: "require" },
    { name: "dofile", expr: "dofile" },
    { name: "loadfile", expr: "loadfile" },
    { name: "debug", expr: "debug" },
    { name: "package", expr: "package" },
    { name: "string.dump", expr: "string.dump" },
    { name: "coroutine (without useOpenLibs)", expr: "coroutine" },
  ])("has no $name", ({ expr }) => {
    expect(said(`return {status = "Healthy", message = tostring(${expr})}`)).toBe("nil");
  });

  it("keeps io, os and debug closed even with useOpenLibs, which opens coroutine and utf8", () => {
    const r = runHealthScript(
      'return {status = "Healthy", message = type(io) .. type(os) .. type(debug) .. type(coroutine) .. type(utf8)}',
      rollout,
      {
        useOpenLibs: true,
      },
    );
    expect(r?.message).toBe("nilnilniltabletable");
  });

  it("has the base, string, table and math libraries", () => {
    expect(
      said(
        'return {status = "Healthy", message = string.upper("a") .. table.concat({"b", "c"}) .. math.max(1, 2) .. tostring(pcall ~= nil)}',
      ),
    ).toBe("Abc2true");
  });

  it("has the Lua 5.1 names Argo CD's scripts use", () => {
    expect(
      said('return {status = "Healthy", message = table.getn({1, 2}) .. unpack({3}) .. math.pow(2, 3) .. loadstring("return 4")()}'),
    ).toBe("238.04");
  });

  it("loads text chunks but refuses binary ones", () => {
    expect(said('return {status = "Healthy", message = tostring(load("return 7")())}')).toBe("7");
    expect(said('local f, err = load("\\27Lua"); return {status = "Healthy", message = tostring(f) .. " " .. err}')).toMatch(
      /^nil .*binary chunk/,
    );
  });

  it("does not let one run's globals leak into the next", () => {
    runHealthScript('leaked = "yes"; return {status = "Healthy"}', rollout);
    expect(said('return {status = "Healthy", message = tostring(leaked)}')).toBe("nil");
  });

  it("cannot change the live object it was given", () => {
    const obj = structuredClone(rollout);
    runHealthScript('obj.spec.replicas = 9; return {status = "Healthy"}', obj);
    expect(obj).toEqual(rollout);
  });
});

describe("the instruction budget of a Lua health script", () => {
  it("stops an endless loop", () => {
    const err = failure("while true do end");
    expect(err.reason).toBe(HealthScriptReason.BudgetExceeded);
    expect(err.message).toBe("health script exceeded its instruction budget");
  });

  it("cannot be swallowed by pcall", () => {
    expect(failure("while true do pcall(function() while true do end end) end").reason).toBe(HealthScriptReason.BudgetExceeded);
  });

  it("refuses a string.rep of more than 1 MiB, which one instruction could otherwise make", () => {
    expect(failure('local s = string.rep("x", 1e9)').message).toMatch(/string\.rep result larger than 1 MiB/);
    expect(said('return {status = "Healthy", message = tostring(#string.rep("ab", 3, ","))}')).toBe("8");
  });

  it("lets a script within it finish", () => {
    const script = 'local n = 0 for i = 1, 1000 do n = n + i end return {status = "Healthy", message = tostring(n)}';
    expect(runHealthScript(script, rollout, { instructionBudget: 100_000 })?.message).toBe("500500");
    expect(failure(script, { instructionBudget: 1000 }).reason).toBe(HealthScriptReason.BudgetExceeded);
  });
});
