import { describe, expect, it } from "vitest";
import { REQUEUE_ON_ERROR_MS, RETRY_AFTER_SLACK_MS, requeueAfterMs, type RequeueInput } from "./requeue.js";

describe("requeueAfterMs", () => {
  it.each<{ name: string; input: RequeueInput; want: number }>([
    { name: "a generation error without anything asked: 3 minutes", input: { kind: "generation-error" }, want: REQUEUE_ON_ERROR_MS },
    {
      name: "a generation error whose generators ask for 30 s: 30 s",
      input: { kind: "generation-error", generatorRequeueMs: 30_000 },
      want: 30_000,
    },
    {
      name: "a generation error whose generators ask for 10 minutes: still 3 minutes",
      input: { kind: "generation-error", generatorRequeueMs: 600_000 },
      want: REQUEUE_ON_ERROR_MS,
    },
    {
      name: "a rate-limited provider: just after its reset, whatever the generators ask",
      input: { kind: "generation-error", retryAfterMs: 42_000, generatorRequeueMs: 5_000 },
      want: 42_000 + RETRY_AFTER_SLACK_MS,
    },
    {
      name: "a pass that went through: the generators' interval",
      input: { kind: "done", generatorRequeueMs: 60_000, validationErrors: false },
      want: 60_000,
    },
    {
      name: "invalid Applications and no interval: 3 minutes",
      input: { kind: "done", generatorRequeueMs: 0, validationErrors: true },
      want: REQUEUE_ON_ERROR_MS,
    },
    { name: "nothing asked: none", input: { kind: "done", generatorRequeueMs: 0, validationErrors: false }, want: 0 },
  ])("$name", ({ input, want }) => {
    expect(requeueAfterMs(input)).toBe(want);
  });
});
