import { describe, expect, it } from "vitest";
import type { ObservedApp } from "../observe.js";
import { observationOf } from "./observation.js";

const observed: ObservedApp = {
  name: "prod-eu",
  syncStatus: "OutOfSync",
  healthStatus: "Healthy",
  revisions: ["3f2a1c9"],
  reconciledAt: 1_000,
  operation: { phase: "Failed", startedAt: 500 },
  hasErrorCondition: false,
  reconciled: true,
  specChanged: false,
  refreshRequested: false,
  terminating: false,
};

describe("the rollout safety view of an observed Application", () => {
  it.each([
    // name; the observed Application; the expected view
    {
      name: "keeps codes, revisions and reconcile time, and takes the operation's phase and start",
      app: observed,
      view: {
        name: "prod-eu",
        syncStatus: "OutOfSync",
        healthStatus: "Healthy",
        operationPhase: "Failed",
        operationStartedAt: 500,
        revisions: ["3f2a1c9"],
        reconciledAt: 1_000,
      },
    },
    {
      name: "has no operation phase when the Application never ran one",
      app: { ...observed, operation: undefined, reconciledAt: undefined },
      view: {
        name: "prod-eu",
        syncStatus: "OutOfSync",
        healthStatus: "Healthy",
        operationPhase: undefined,
        revisions: ["3f2a1c9"],
        reconciledAt: undefined,
      },
    },
  ])("$name", ({ app, view }) => {
    expect(observationOf(app)).toEqual(view);
  });
});
