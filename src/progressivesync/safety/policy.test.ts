import { describe, expect, it } from "vitest";
import type { ApplicationSet, RolloutPolicy } from "../../api/index.js";
import { resolvePolicy } from "./policy.js";

function policy(spec: Partial<RolloutPolicy["spec"]>, namespace = "argocd"): RolloutPolicy {
  return { metadata: { name: "careful", namespace }, spec: { applicationSets: { names: ["guestbook"] }, ...spec } };
}

function appSet(name: string, labels: Record<string, string> = {}, namespace = "argocd"): ApplicationSet {
  return {
    metadata: { name, namespace, labels },
    spec: { generators: [], template: { metadata: {}, spec: {} } },
  } as unknown as ApplicationSet;
}

describe("resolving a RolloutPolicy", () => {
  it("turns Go durations into milliseconds and 1-based steps into indexes, defaults and overrides apart", () => {
    const r = resolvePolicy(
      policy({
        defaults: { progressDeadline: "10m", maxFailures: "10%", soak: "1m30s" },
        steps: [{ step: 3, requireApproval: true, soak: "1h" }],
        rollback: { enabled: true },
      }),
    );
    expect(r.problems).toEqual([]);
    expect(r.spec.defaults).toEqual({ progressDeadlineMs: 600_000, maxFailures: "10%", soakMs: 90_000 });
    expect(r.spec.steps?.[2]).toEqual({ requireApproval: true, soakMs: 3_600_000 });
    expect(r.spec.steps?.[0]).toBeUndefined();
    expect(r.spec.rollback).toEqual({ enabled: true, includeEarlierSteps: false });
    expect(r.historyLimit).toBe(10);
  });

  it.each([
    // name; the spec; the problem reported
    {
      name: "a duration Go refuses",
      spec: { defaults: { soak: "10 minutes" } },
      problem: 'spec.defaults.soak: time: unknown unit " minutes" in duration "10 minutes"',
    },
    {
      name: "a negative duration",
      spec: { defaults: { progressDeadline: "-5m" } },
      problem: 'spec.defaults.progressDeadline: must not be negative, got "-5m"',
    },
    {
      name: "a budget that is no count or percentage",
      spec: { defaults: { maxFailures: "a few" } },
      problem: 'spec.defaults.maxFailures: "a few" is neither a count nor a percentage such as "10%"',
    },
    { name: "step 0", spec: { steps: [{ step: 0 }] }, problem: "spec.steps[0].step: must be a step number from 1, got 0" },
    {
      name: "a step named twice",
      spec: { steps: [{ step: 2 }, { step: 2, soak: "1m" }] },
      problem: "spec.steps[1].step: step 2 is named twice",
    },
    { name: "a history limit of 0", spec: { historyLimit: 0 }, problem: "spec.historyLimit: must be from 1 to 100, got 0" },
    {
      name: "a selector with a bad operator",
      spec: { applicationSets: { selector: { matchExpressions: [{ key: "tier", operator: "Near", values: ["x"] }] } } },
      problem: 'spec.applicationSets.selector: "Near" is not a valid label selector operator',
    },
  ])("reports $name, naming the field", ({ spec, problem }) => {
    expect(resolvePolicy(policy(spec as Partial<RolloutPolicy["spec"]>)).problems).toEqual([problem]);
  });

  it("bounds the history limit it uses even when it reports it", () => {
    expect(resolvePolicy(policy({ historyLimit: 5000 })).historyLimit).toBe(100);
    expect(resolvePolicy(policy({ historyLimit: 3 })).historyLimit).toBe(3);
  });
});

describe("which ApplicationSets a policy selects", () => {
  it.each([
    // name; the selection; the ApplicationSet; selected or not
    { name: "by name", sel: { names: ["guestbook"] }, as: appSet("guestbook"), selected: true },
    { name: "not another name", sel: { names: ["guestbook"] }, as: appSet("other"), selected: false },
    { name: "by label", sel: { selector: { matchLabels: { tier: "prod" } } }, as: appSet("x", { tier: "prod" }), selected: true },
    {
      name: "not a label that differs",
      sel: { selector: { matchLabels: { tier: "prod" } } },
      as: appSet("x", { tier: "dev" }),
      selected: false,
    },
    {
      name: "the union of names and labels",
      sel: { names: ["a"], selector: { matchLabels: { tier: "prod" } } },
      as: appSet("a", { tier: "dev" }),
      selected: true,
    },
    { name: "nothing without names or selector", sel: {}, as: appSet("guestbook"), selected: false },
    { name: "every ApplicationSet with an empty selector", sel: { selector: {} }, as: appSet("any"), selected: true },
    {
      name: "never one of another namespace, even by name",
      sel: { names: ["guestbook"] },
      as: appSet("guestbook", {}, "tenant-b"),
      selected: false,
    },
    { name: "never one of another namespace by label", sel: { selector: {} }, as: appSet("x", {}, "tenant-b"), selected: false },
  ])("$name", ({ sel, as, selected }) => {
    expect(resolvePolicy(policy({ applicationSets: sel })).selects(as)).toBe(selected);
  });
});
