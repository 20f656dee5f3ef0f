import { describe, expect, it } from "vitest";
import { obj, task } from "../../test/unit/syncwaves/builders.js";
import { noKindMessage, resultMessage } from "./messages.js";
import { planStep } from "./plan.js";

const widget = obj("Widget", "w", { apiVersion: "example.com/v1", namespace: "ns" });
const discoveryFailed =
  "failed to discover server resources for group version example.com/v1: the server could not find the requested resource";

describe("result messages", () => {
  it.each([
    {
      name: "a kind the apiserver does not serve names the CRD to install",
      message: discoveryFailed,
      want: 'The Kubernetes API could not find example.com/Widget for requested resource ns/w. Make sure the "Widget" CRD is installed on the destination cluster.',
    },
    { name: "other messages are kept", message: 'Widget.example.com "" not found', want: 'Widget.example.com "" not found' },
  ])("$name", ({ message, want }) => {
    expect(resultMessage(task(widget), message)).toBe(want);
  });

  it("says as kubectl does that a kind has no mapping", () => {
    expect(noKindMessage(widget)).toBe(
      'resource mapping not found for name: "w" namespace: "ns": no matches for kind "Widget" in version "example.com/v1"\nensure CRDs are installed first',
    );
  });

  it("fails an operation with an invalid task: the operation gives the discovery error, the result the CRD hint", () => {
    const step = planStep({
      tasks: [{ ...task(widget), invalid: discoveryFailed }, task(obj("ConfigMap", "c", { namespace: "ns" }))],
      started: false,
      validated: false,
      dryRun: false,
      prune: false,
      appOptions: [],
      startedAtMs: 0,
      nowMs: 0,
    });
    expect(step.phase).toBe("Failed");
    expect(step.message).toBe(`one or more synchronization tasks are not valid: ${discoveryFailed}`);
    expect(step.tasks[0]?.state).toEqual({ status: "SyncFailed", message: resultMessage(task(widget), discoveryFailed) });
    expect(step.tasks[1]?.state).toEqual({});
  });
});
