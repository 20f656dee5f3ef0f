import { describe, expect, it } from "vitest";
import { assignSteps, labelsOf, matchStep, stepIndexOf, stepLabel } from "./steps.js";

const expr = (key: string, operator: string, values: string[]) => ({ key, operator, values });

describe("matchStep", () => {
  it.each([
    // name; the step's expressions; the Application's labels; expected selection and reported invalid operator
    { name: "In with the value listed selects", exprs: [expr("env", "In", ["dev", "qa"])], labels: { env: "qa" }, selected: true },
    { name: "In with the value not listed does not select", exprs: [expr("env", "In", ["dev"])], labels: { env: "prod" }, selected: false },
    { name: "In with the key absent does not select", exprs: [expr("env", "In", ["dev"])], labels: {}, selected: false },
    {
      name: "NotIn with the value listed does not select",
      exprs: [expr("env", "NotIn", ["dev"])],
      labels: { env: "dev" },
      selected: false,
    },
    { name: "NotIn with the value not listed selects", exprs: [expr("env", "NotIn", ["dev"])], labels: { env: "prod" }, selected: true },
    { name: "NotIn with the key absent selects", exprs: [expr("env", "NotIn", ["dev"])], labels: {}, selected: true },
    {
      name: "an invalid operator with the key present does not select and is reported",
      exprs: [expr("env", "Exists", [])],
      labels: { env: "dev" },
      selected: false,
      invalid: "Exists",
    },
    {
      name: "an invalid operator with the key absent selects and is not reported",
      exprs: [expr("env", "Exists", [])],
      labels: {},
      selected: true,
    },
    { name: "no expressions select everything", exprs: [], labels: { env: "x" }, selected: true },
    {
      name: "every expression must pass (In passes, NotIn fails)",
      exprs: [expr("env", "In", ["dev"]), expr("tier", "NotIn", ["db"])],
      labels: { env: "dev", tier: "db" },
      selected: false,
    },
    {
      name: "every expression must pass (both pass)",
      exprs: [expr("env", "In", ["dev"]), expr("tier", "NotIn", ["db"])],
      labels: { env: "dev", tier: "web" },
      selected: true,
    },
    {
      name: "evaluation stops at the first failing expression",
      exprs: [expr("env", "In", ["dev"]), expr("tier", "Bogus", [])],
      labels: { env: "prod", tier: "web" },
      selected: false,
    },
  ])("$name", ({ exprs, labels, selected, invalid }) => {
    expect(matchStep({ matchExpressions: exprs }, labels as Record<string, string>)).toEqual(
      invalid === undefined ? { selected } : { selected, invalidOperator: invalid },
    );
  });
});

describe("assignSteps", () => {
  const steps = [
    { matchExpressions: [expr("env", "In", ["dev"])] },
    { matchExpressions: [expr("env", "In", ["dev", "qa"])] },
    { matchExpressions: [expr("env", "In", ["prod"])] },
    { matchExpressions: [expr("env", "In", ["nowhere"])] },
  ];
  const apps = [
    { name: "a-dev", labels: { env: "dev" } },
    { name: "b-qa", labels: { env: "qa" } },
    { name: "c-prod", labels: { env: "prod" } },
    { name: "d-none", labels: { env: "staging" } },
  ];

  it("lists each Application in every step selecting it and takes the first as its status step", () => {
    const res = assignSteps(steps, apps);
    expect(res.stepApps).toEqual([["a-dev"], ["a-dev", "b-qa"], ["c-prod"], []]);
    expect([...res.appStep]).toEqual([
      ["a-dev", 0],
      ["b-qa", 1],
      ["c-prod", 2],
    ]);
  });

  it("records the duplicate selection with every selecting step", () => {
    expect([...assignSteps(steps, apps).duplicateAppSelections]).toEqual([["a-dev", [0, 1]]]);
  });

  it("records the steps that select nothing", () => {
    expect(assignSteps(steps, apps).emptySteps).toEqual([3]);
  });

  it("leaves an Application selected by no step unassigned, labelled -1", () => {
    const res = assignSteps(steps, apps);
    expect(res.appStep.has("d-none")).toBe(false);
    expect(stepLabel(res.appStep.get("d-none"))).toBe("-1");
    expect(stepLabel(res.appStep.get("c-prod"))).toBe("3");
  });

  it("reports an invalid operator once per step and operator, ordered by step rather than by discovery", () => {
    const bad = [{ matchExpressions: [expr("a", "Bogus", [])] }, { matchExpressions: [expr("b", "Invalid", [])] }];
    const res = assignSteps(bad, [
      { name: "x", labels: { b: "1" } },
      { name: "y", labels: { a: "1" } },
      { name: "z", labels: { a: "2", b: "2" } },
    ]);
    expect(res.invalidMatchExpressions).toEqual([
      { stepIndex: 0, operator: "Bogus" },
      { stepIndex: 1, operator: "Invalid" },
    ]);
  });

  it("a step without expressions selects every Application", () => {
    expect(assignSteps([{}], apps).stepApps).toEqual([apps.map((a) => a.name)]);
  });
});

describe("step labels and labels", () => {
  it.each([
    // name; label; expected 0-based index
    { name: "1 is the first step", label: "1", index: 0 },
    { name: "12 is the twelfth step", label: "12", index: 11 },
    { name: "-1 is unassigned", label: "-1", index: undefined },
    { name: "0 is not a step", label: "0", index: undefined },
    { name: "garbage is not a step", label: "x", index: undefined },
  ])("stepIndexOf: $name", ({ label, index }) => {
    expect(stepIndexOf(label)).toBe(index);
  });

  it("labelsOf keeps string values only", () => {
    expect(labelsOf({ labels: { a: "1", b: 2, c: null } })).toEqual({ a: "1" });
    expect(labelsOf(undefined)).toEqual({});
  });
});
