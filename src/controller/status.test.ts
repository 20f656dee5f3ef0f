import { describe, expect, it } from "vitest";
import { nextStatus, resourcesFor } from "./status.js";

const input = (_count: number) => ({
  outcome: { kind: "ok" as const },
  resources: resourcesFor([], 0),
  now: "2026-01-01T00:00:00Z",
  rollingSync: false,
});

describe("nextStatus: resources when nothing is generated", () => {
  it("leaves resources and resourcesCount out, and clears them (null in the merge patch) when they were set", () => {
    const first = nextStatus(undefined, input(0));
    expect(first).toMatchObject({ resources: null, resourcesCount: null });
    const had = {
      ...first,
      resources: [{ group: "argoproj.io", version: "v1alpha1", kind: "Application", name: "a", namespace: "n", health: {} }],
      resourcesCount: 1,
    };
    expect(nextStatus(had as never, input(0))).toMatchObject({ resources: null, resourcesCount: null });
  });

  it("writes nothing again once they are gone", () => {
    const first = nextStatus(undefined, input(0))!;
    const { resources: _r, resourcesCount: _c, ...applied } = first;
    expect(nextStatus(applied, input(0))).toBeUndefined();
  });
});
