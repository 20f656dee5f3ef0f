import { describe, expect, it } from "vitest";
import { AppSetMetrics, Registry } from "./index.js";

const GUESTBOOK = { namespace: "argocd", name: "guestbook" };

function setup() {
  const registry = new Registry();
  const metrics = new AppSetMetrics({ registry, list: () => [], namespaceAllowed: () => true }).progressiveSync;
  return { registry, metrics };
}

async function samples(registry: Registry, name: string): Promise<string[]> {
  return (await registry.getSingleMetricAsString(name)).split("\n").filter((l) => l !== "" && !l.startsWith("#"));
}

describe("rollout safety's metrics", () => {
  it("observes the steps that ended, counts halts by reason, and sets the failed Applications per step", async () => {
    const { registry, metrics } = setup();
    metrics.reportSafety(GUESTBOOK, {
      stepEnds: [{ step: "1", phase: "Completed", seconds: 42 }],
      halts: [],
      failed: [
        { step: "1", count: 1 },
        { step: "2", count: 0 },
      ],
    });
    metrics.reportSafety(GUESTBOOK, {
      stepEnds: [{ step: "2", phase: "Halted", seconds: 600 }],
      halts: ["ProgressDeadlineExceeded"],
      failed: [{ step: "2", count: 3 }],
    });
    const durations = await samples(registry, "appset_rollout_step_duration_seconds");
    expect(durations).toContain(
      'appset_rollout_step_duration_seconds_sum{namespace="argocd",name="guestbook",step="1",phase="Completed"} 42',
    );
    expect(durations).toContain(
      'appset_rollout_step_duration_seconds_bucket{le="600",namespace="argocd",name="guestbook",step="2",phase="Halted"} 1',
    );
    expect(await samples(registry, "appset_rollout_halts_total")).toEqual([
      'appset_rollout_halts_total{namespace="argocd",name="guestbook",reason="ProgressDeadlineExceeded"} 1',
    ]);
    // The second report replaced the first one's failed series: step 1 is gone.
    expect(await samples(registry, "appset_rollout_failed_applications")).toEqual([
      'appset_rollout_failed_applications{namespace="argocd",name="guestbook",step="2"} 3',
    ]);
  });

  it("drops the failed-Applications series of an ApplicationSet that is gone", async () => {
    const { registry, metrics } = setup();
    metrics.reportSafety(GUESTBOOK, { stepEnds: [], halts: [], failed: [{ step: "1", count: 2 }] });
    metrics.forgetAppSet(GUESTBOOK);
    expect(await samples(registry, "appset_rollout_failed_applications")).toEqual([]);
  });
});
