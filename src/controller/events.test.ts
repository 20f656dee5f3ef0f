import { describe, expect, it } from "vitest";
import { FakeClock } from "../clock/index.js";
import { resources } from "../kube/index.js";
import { FakeKubeClient } from "../../test/support/fake-kube-client.js";
import { capturedLogger } from "../../test/support/captured-logger.js";
import { appSet } from "../../test/support/controller-builders.js";
import { KubeEventSink, SPAM_BURST, SpamFilter } from "./events.js";

describe("SpamFilter", () => {
  it("lets a burst of 25 events through per object, then one more every 5 minutes", () => {
    const clock = new FakeClock(0);
    const filter = new SpamFilter(clock);
    const first = Array.from({ length: 30 }, () => filter.allow("a"));
    expect(first.filter(Boolean)).toHaveLength(SPAM_BURST);
    expect(filter.allow("b")).toBe(true);
    clock.advance(299_000);
    expect(filter.allow("a")).toBe(false);
    clock.advance(1_000);
    expect(filter.allow("a")).toBe(true);
    expect(filter.allow("a")).toBe(false);
  });
});

describe("KubeEventSink", () => {
  it("sends one event at a time, so a repeat's count never races the create of its Event", async () => {
    const client = new FakeKubeClient();
    // Each create takes a few turns, as a request does: sent side by side, the next event's patch
    // would find no Event yet, create it too and fail "already exists".
    client.interceptors.create = async (_action, next) => {
      for (let turn = 0; turn < 5; turn++) await Promise.resolve();
      return next();
    };
    const { lines, logger } = capturedLogger();
    const sink = new KubeEventSink({ writer: client, clock: new FakeClock(Date.UTC(2026, 0, 1)), logger });
    const set = appSet();
    // Eleven different messages of one reason: the tenth and eleventh are combined into one Event.
    await Promise.all(Array.from({ length: 11 }, (_, i) => sink.record(set, { reason: "Created", message: `created app-${i}` })));
    expect(lines.filter((l) => l["msg"] === "failed to record event")).toEqual([]);
    expect(client.actions.map((a) => a.verb)).toEqual([...Array<string>(10).fill("create"), "patch"]);
    const events = (await client.list(resources.Events, { namespace: "argocd" })).items as Array<{ message: string; count: number }>;
    expect(events).toHaveLength(10);
    expect(events.filter((e) => e.message.startsWith("(combined from similar events)"))).toMatchObject([{ count: 2 }]);
  });
});
