import { describe, expect, it } from "vitest";
import { healthFor, mergeConditions } from "./conditions.js";

const c = (type: string, status: string, reason = "r", message = "m", lastTransitionTime = "2025-01-01T00:00:00Z") => ({
  type,
  status,
  reason,
  message,
  lastTransitionTime,
});

describe("healthFor", () => {
  it.each([
    { name: "no conditions is Unknown", conds: [], want: { status: "Unknown", message: "No status conditions found for ApplicationSet" } },
    {
      name: "ErrorOccurred=True is Degraded",
      conds: [c("ErrorOccurred", "True", "x", "bad"), c("ResourcesUpToDate", "True")],
      want: { status: "Degraded", message: "bad" },
    },
    {
      name: "RolloutProgressing=True is Progressing",
      conds: [c("RolloutProgressing", "True", "x", "step 1"), c("ResourcesUpToDate", "True")],
      want: { status: "Progressing", message: "step 1" },
    },
    {
      name: "ResourcesUpToDate=True is Healthy",
      conds: [c("ResourcesUpToDate", "True", "x", "fine")],
      want: { status: "Healthy", message: "fine" },
    },
    {
      name: "anything else waits",
      conds: [c("ParametersGenerated", "True")],
      want: { status: "Unknown", message: "Waiting for health status to be determined" },
    },
  ])("$name", ({ conds, want }) => {
    expect(healthFor(conds)).toEqual(want);
  });
});

describe("mergeConditions", () => {
  it("keeps conditions it does not evaluate, drops rollout conditions of a non-RollingSync ApplicationSet, and sorts by type", () => {
    const merged = mergeConditions(
      [c("Zeta", "True"), c("RolloutProgressing", "True")],
      [{ type: "ErrorOccurred", status: "False", reason: "r", message: "m" }],
      { now: "T", rollingSync: false },
    );
    expect(merged.map((x) => x.type)).toEqual(["ErrorOccurred", "Zeta"]);
  });

  it("cuts a message longer than 8,192 characters, and an unchanged long message keeps its time", () => {
    const long = { type: "ErrorOccurred", status: "True", reason: "r", message: "e".repeat(1_048_576) };
    const [first] = mergeConditions([], [long], { now: "T1", rollingSync: false });
    expect({ length: first?.message.length, end: first?.message.slice(-30) }).toEqual({
      length: 8_192,
      end: expect.stringMatching(/more characters\)$/) as unknown,
    });
    const [again] = mergeConditions([first!], [long], { now: "T2", rollingSync: false });
    expect(again?.lastTransitionTime).toBe("T1");
  });

  it("keeps rollout conditions of a RollingSync ApplicationSet", () => {
    const merged = mergeConditions([c("RolloutProgressing", "True")], [], { now: "T", rollingSync: true });
    expect(merged.map((x) => x.type)).toEqual(["RolloutProgressing"]);
  });

  it("gives a changed condition the new time and an unchanged one its old time", () => {
    const merged = mergeConditions(
      [c("A", "True"), c("B", "True")],
      [
        { type: "A", status: "True", reason: "r", message: "m" },
        { type: "B", status: "False", reason: "r", message: "m" },
      ],
      { now: "NOW", rollingSync: false },
    );
    expect(merged.map((x) => x.lastTransitionTime)).toEqual(["2025-01-01T00:00:00Z", "NOW"]);
  });
});
