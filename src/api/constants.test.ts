import { describe, expect, it } from "vitest";
import { Finalizer } from "./constants.js";
import { HealthStatus } from "./application-status.js";
import { andMoreSuffix, ConditionType, EventMessage, Reason, rolloutStepMessage, RollingSyncStatus } from "./appset-status.js";

describe("constants", () => {
  it("lists exactly the 15 ApplicationSet reasons of Argo CD, each spelled as its key", () => {
    expect(Object.keys(Reason)).toHaveLength(15);
    for (const [key, value] of Object.entries(Reason)) expect(value).toBe(key);
  });

  it.each([
    // set: a closed set of values; expected: its values in Argo CD's spelling and order
    {
      name: "condition types",
      set: ConditionType,
      expected: ["ErrorOccurred", "ParametersGenerated", "ResourcesUpToDate", "RolloutProgressing", "InvalidRolloutConfig"],
    },
    { name: "RollingSync statuses", set: RollingSyncStatus, expected: ["Waiting", "Pending", "Progressing", "Healthy"] },
    {
      name: "health statuses (best to worst)",
      set: HealthStatus,
      expected: ["Healthy", "Suspended", "Progressing", "Missing", "Degraded", "Unknown"],
    },
  ])("spells the $name as Argo CD does", ({ set, expected }) => {
    expect(Object.values(set)).toEqual(expected);
  });

  it.each([
    { name: "a rollout step", actual: rolloutStepMessage(2), expected: "ApplicationSet is performing rollout of step 2" },
    { name: "further validation errors", actual: andMoreSuffix(3), expected: " (and 3 more)" },
    { name: "a created event", actual: EventMessage.created("a"), expected: 'created Application "a"' },
    {
      name: "a finalizer event",
      actual: EventMessage.finalizerUpdated("a"),
      expected: 'Updated Application "a" finalizer before deletion, because application has an invalid destination',
    },
  ])("formats the message of $name verbatim", ({ actual, expected }) => {
    expect(actual).toBe(expected);
  });

  it("derives the foreground and background resource finalizers from the base one", () => {
    expect(Finalizer.ResourcesForeground).toBe(`${Finalizer.Resources}/foreground`);
    expect(Finalizer.ResourcesBackground).toBe(`${Finalizer.Resources}/background`);
  });
});
