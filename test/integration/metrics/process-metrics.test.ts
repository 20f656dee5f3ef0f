/**
 * Node's process metrics of the registry the controller serves: the event-loop delay percentiles
 * are exported, and a sample taken once a second (src/metrics/index.ts) still sees a stall of the
 * event loop.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { createMetricsRegistry, EVENT_LOOP_SAMPLE_MS } from "../../../src/metrics/index.js";

/** Blocks the event loop for `ms`, as a long synchronous render would. */
function stall(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // busy
  }
}

/** The value of each unlabelled gauge, read in one scrape (a scrape resets the event-loop histogram). */
async function scrape(registry: ReturnType<typeof createMetricsRegistry>): Promise<Map<string, number>> {
  return new Map((await registry.getMetricsAsJSON()).map((m) => [m.name, Number(m.values[0]?.value)]));
}

describe("process metrics", () => {
  it("export the event-loop delay percentiles, and a sample catches a stall longer than the sampling period", async () => {
    const registry = createMetricsRegistry();
    await sleep(EVENT_LOOP_SAMPLE_MS + 100);
    stall(EVENT_LOOP_SAMPLE_MS * 1.5);
    await sleep(EVENT_LOOP_SAMPLE_MS + 100);
    const values = await scrape(registry);
    expect(values.get("nodejs_eventloop_lag_p99_seconds")).toBeGreaterThanOrEqual(0);
    expect(values.get("nodejs_eventloop_lag_max_seconds")).toBeGreaterThanOrEqual((EVENT_LOOP_SAMPLE_MS * 0.4) / 1000);
    registry.clear();
  });
});
