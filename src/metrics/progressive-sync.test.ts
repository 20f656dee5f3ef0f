import { describe, expect, it } from "vitest";
import { AppSetMetrics, DETECTION_TO_TRIGGER_BUCKETS, Registry, type AppStatusView } from "./index.js";

const GUESTBOOK = { namespace: "argocd", name: "guestbook" };
const OTHER = { namespace: "team", name: "other" };

function setup() {
  const registry = new Registry();
  const metrics = new AppSetMetrics({ registry, list: () => [], namespaceAllowed: () => true }).progressiveSync;
  return { registry, metrics };
}

/** The exposition of one family: its HELP and TYPE lines, then its samples. */
async function exposition(registry: Registry, name: string): Promise<string[]> {
  return (await registry.getSingleMetricAsString(name)).split("\n").filter((l) => l !== "");
}

const status = (step: string, s: string): AppStatusView => ({ step, status: s });

describe("ProgressiveSyncMetrics", () => {
  it.each([
    {
      name: "argocd_appset_progressive_sync_app_status",
      help: "Count of apps per status (Waiting/Pending/Progressing/Healthy) per step",
      type: "gauge",
    },
    {
      name: "argocd_appset_progressive_sync_syncs_triggered_total",
      help: "Counts sync operations triggered by progressive sync",
      type: "counter",
    },
    {
      name: "argocd_appset_progressive_sync_detection_to_trigger_seconds",
      help: "Time between detecting applications to sync and triggering their sync during a progressive sync wave",
      type: "histogram",
    },
    {
      name: "argocd_appset_app_refresh_total",
      help: "Counts application refresh triggered by AppSet for progressive sync",
      type: "counter",
    },
  ])("registers $name as a $type with Argo CD's help text", async ({ name, help, type }) => {
    const { registry } = setup();
    expect((await exposition(registry, name)).slice(0, 2)).toEqual([`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`]);
  });

  it.each([
    {
      name: "counts the entries per step and status",
      // applicationStatus entries set in turn; the last set is what the gauge shows
      sets: [[status("1", "Healthy"), status("1", "Healthy"), status("2", "Pending"), status("3", "Waiting")]],
      want: [
        'argocd_appset_progressive_sync_app_status{namespace="argocd",name="guestbook",step="1",progressiveStatus="Healthy"} 2',
        'argocd_appset_progressive_sync_app_status{namespace="argocd",name="guestbook",step="2",progressiveStatus="Pending"} 1',
        'argocd_appset_progressive_sync_app_status{namespace="argocd",name="guestbook",step="3",progressiveStatus="Waiting"} 1',
      ],
    },
    {
      name: "drops the series of a status no entry has any more (an app going Healthy)",
      sets: [
        [status("1", "Progressing"), status("1", "Healthy")],
        [status("1", "Healthy"), status("1", "Healthy")],
      ],
      want: ['argocd_appset_progressive_sync_app_status{namespace="argocd",name="guestbook",step="1",progressiveStatus="Healthy"} 2'],
    },
    {
      name: "drops the series of a step an app left",
      sets: [[status("1", "Healthy"), status("2", "Waiting")], [status("1", "Healthy")]],
      want: ['argocd_appset_progressive_sync_app_status{namespace="argocd",name="guestbook",step="1",progressiveStatus="Healthy"} 1'],
    },
    {
      name: "keeps the step label of an app no step selects",
      sets: [[status("-1", "Waiting")]],
      want: ['argocd_appset_progressive_sync_app_status{namespace="argocd",name="guestbook",step="-1",progressiveStatus="Waiting"} 1'],
    },
    {
      name: "removes every series when the entries are cleared",
      sets: [[status("1", "Healthy")], []],
      want: [],
    },
  ])("app status: $name", async ({ sets, want }) => {
    const { registry, metrics } = setup();
    metrics.setAppStatus(OTHER, [status("1", "Pending")]);
    for (const entries of sets) metrics.setAppStatus(GUESTBOOK, entries);
    const samples = (await exposition(registry, "argocd_appset_progressive_sync_app_status")).filter((l) => !l.startsWith("#"));
    expect(samples).toEqual([
      'argocd_appset_progressive_sync_app_status{namespace="team",name="other",step="1",progressiveStatus="Pending"} 1',
      ...want,
    ]);
  });

  it("removes only the app-status series of a forgotten ApplicationSet; its counters and histogram stay", async () => {
    const { registry, metrics } = setup();
    metrics.setAppStatus(GUESTBOOK, [status("1", "Healthy")]);
    metrics.setAppStatus(OTHER, [status("1", "Pending")]);
    metrics.syncTriggered(GUESTBOOK, "1");
    metrics.refreshTriggered(GUESTBOOK);
    metrics.observeDetectionToTrigger(GUESTBOOK, 0.01);
    metrics.forgetAppSet(GUESTBOOK);
    const text = await registry.metrics();
    expect(text).not.toContain('argocd_appset_progressive_sync_app_status{namespace="argocd"');
    expect(text).toContain(
      'argocd_appset_progressive_sync_app_status{namespace="team",name="other",step="1",progressiveStatus="Pending"} 1',
    );
    expect(text).toContain('argocd_appset_progressive_sync_syncs_triggered_total{namespace="argocd",name="guestbook",step="1"} 1');
    expect(text).toContain('argocd_appset_app_refresh_total{namespace="argocd",name="guestbook"} 1');
    expect(text).toContain('argocd_appset_progressive_sync_detection_to_trigger_seconds_count{namespace="argocd",name="guestbook"} 1');
  });

  it("counts triggered syncs per step", async () => {
    const { registry, metrics } = setup();
    for (const step of ["1", "2", "2", "3"]) metrics.syncTriggered(GUESTBOOK, step);
    expect((await exposition(registry, "argocd_appset_progressive_sync_syncs_triggered_total")).slice(2)).toEqual([
      'argocd_appset_progressive_sync_syncs_triggered_total{namespace="argocd",name="guestbook",step="1"} 1',
      'argocd_appset_progressive_sync_syncs_triggered_total{namespace="argocd",name="guestbook",step="2"} 2',
      'argocd_appset_progressive_sync_syncs_triggered_total{namespace="argocd",name="guestbook",step="3"} 1',
    ]);
  });

  it("counts refreshes per ApplicationSet", async () => {
    const { registry, metrics } = setup();
    for (const ref of [GUESTBOOK, GUESTBOOK, GUESTBOOK, OTHER]) metrics.refreshTriggered(ref);
    expect((await exposition(registry, "argocd_appset_app_refresh_total")).slice(2)).toEqual([
      'argocd_appset_app_refresh_total{namespace="argocd",name="guestbook"} 3',
      'argocd_appset_app_refresh_total{namespace="team",name="other"} 1',
    ]);
  });

  it("observes detection-to-trigger times in Argo CD's buckets", async () => {
    const { registry, metrics } = setup();
    expect(DETECTION_TO_TRIGGER_BUCKETS).toEqual([0.05, 0.1, 0.15, 0.5, 1, 5]);
    metrics.observeDetectionToTrigger(GUESTBOOK, 0.01);
    metrics.observeDetectionToTrigger(GUESTBOOK, 3);
    const b = (le: string, n: number): string =>
      `argocd_appset_progressive_sync_detection_to_trigger_seconds_bucket{le="${le}",namespace="argocd",name="guestbook"} ${String(n)}`;
    expect((await exposition(registry, "argocd_appset_progressive_sync_detection_to_trigger_seconds")).slice(2)).toEqual([
      b("0.05", 1),
      b("0.1", 1),
      b("0.15", 1),
      b("0.5", 1),
      b("1", 1),
      b("5", 2),
      b("+Inf", 2),
      'argocd_appset_progressive_sync_detection_to_trigger_seconds_sum{namespace="argocd",name="guestbook"} 3.01',
      'argocd_appset_progressive_sync_detection_to_trigger_seconds_count{namespace="argocd",name="guestbook"} 2',
    ]);
  });
});
