import { describe, expect, it } from "vitest";
import { APP_RECONCILE_BUCKETS, Registry, SyncEngineMetrics, type AppMetricsView } from "./index.js";

/** The exposition lines of one metric family, without HELP/TYPE. */
async function lines(registry: Registry, name: string): Promise<string[]> {
  const text = await registry.getSingleMetricAsString(name);
  return text.split("\n").filter((l) => l !== "" && !l.startsWith("#"));
}

const app = (over: Partial<AppMetricsView> = {}): AppMetricsView => ({
  metadata: { namespace: "argocd", name: "web" },
  spec: {
    project: "default",
    source: { repoURL: "https://github.com/Org/Repo.git" },
    destination: { server: "https://kubernetes.default.svc", namespace: "web" },
  },
  ...over,
});

describe("SyncEngineMetrics", () => {
  it.each([
    {
      name: "an Application with no status reports Unknown sync and health and no operation",
      view: app(),
      want: 'argocd_app_info{namespace="argocd",name="web",project="default",autosync_enabled="false",repo="https://github.com/org/repo",dest_server="https://kubernetes.default.svc",dest_namespace="web",sync_status="Unknown",health_status="Unknown",operation=""} 1',
    },
    {
      name: "a Synced, Healthy, automated Application with a sync operation reports them",
      view: app({
        spec: { ...app().spec, syncPolicy: { automated: {} } },
        operation: { sync: {} },
        status: { sync: { status: "Synced" }, health: { status: "Healthy" } },
      }),
      want: 'argocd_app_info{namespace="argocd",name="web",project="default",autosync_enabled="true",repo="https://github.com/org/repo",dest_server="https://kubernetes.default.svc",dest_namespace="web",sync_status="Synced",health_status="Healthy",operation="sync"} 1',
    },
    {
      name: "a deleted Application reports the delete operation",
      view: app({ metadata: { namespace: "argocd", name: "web", deletionTimestamp: "2026-01-01T00:00:00Z" }, operation: { sync: {} } }),
      want: 'argocd_app_info{namespace="argocd",name="web",project="default",autosync_enabled="false",repo="https://github.com/org/repo",dest_server="https://kubernetes.default.svc",dest_namespace="web",sync_status="Unknown",health_status="Unknown",operation="delete"} 1',
    },
  ])("argocd_app_info: $name", async ({ view, want }) => {
    const registry = new Registry();
    new SyncEngineMetrics({ registry, list: () => [view] });
    expect(await lines(registry, "argocd_app_info")).toEqual([want]);
  });

  it("argocd_app_info follows the listed Applications at every scrape, dropping deleted ones", async () => {
    const registry = new Registry();
    let listed = [app(), app({ metadata: { namespace: "argocd", name: "api" } })];
    new SyncEngineMetrics({ registry, list: () => listed });
    expect(await lines(registry, "argocd_app_info")).toHaveLength(2);
    listed = [];
    expect(await lines(registry, "argocd_app_info")).toEqual([]);
  });

  it.each([
    {
      name: "a succeeded sync counts its phase and adds its whole seconds",
      phase: "Succeeded",
      finishedAt: "2026-01-01T00:00:07.900Z",
      count: 1,
      seconds: "7",
    },
    {
      name: "a failed sync counts its phase and adds no duration",
      phase: "Failed",
      finishedAt: "2026-01-01T00:00:07Z",
      count: 1,
      seconds: undefined,
    },
    { name: "an errored sync counts its phase", phase: "Error", finishedAt: "2026-01-01T00:00:01Z", count: 1, seconds: undefined },
    { name: "a running operation is not counted", phase: "Running", finishedAt: undefined, count: 0, seconds: undefined },
  ])("argocd_app_sync_total: $name", async ({ phase, finishedAt, count, seconds }) => {
    const registry = new Registry();
    const metrics = new SyncEngineMetrics({ registry, list: () => [] });
    metrics.syncCompleted(app(), { phase, startedAt: "2026-01-01T00:00:00.500Z", ...(finishedAt ? { finishedAt } : {}) });
    const labels = 'namespace="argocd",name="web",project="default",dest_server="https://kubernetes.default.svc"';
    expect(await lines(registry, "argocd_app_sync_total")).toEqual(
      count === 0 ? [] : [`argocd_app_sync_total{${labels},phase="${phase}"} ${count}`],
    );
    expect(await lines(registry, "argocd_app_sync_duration_seconds")).toEqual(
      seconds === undefined ? [] : [`argocd_app_sync_duration_seconds{${labels}} ${seconds}`],
    );
  });

  it("argocd_app_reconcile is a histogram by namespace and destination with Argo CD's buckets", async () => {
    const registry = new Registry();
    const metrics = new SyncEngineMetrics({ registry, list: () => [] });
    metrics.reconciled(app(), 0.3);
    const out = await lines(registry, "argocd_app_reconcile");
    expect(out).toContain('argocd_app_reconcile_bucket{le="0.25",namespace="argocd",dest_server="https://kubernetes.default.svc"} 0');
    expect(out).toContain('argocd_app_reconcile_bucket{le="0.5",namespace="argocd",dest_server="https://kubernetes.default.svc"} 1');
    expect(out).toContain('argocd_app_reconcile_count{namespace="argocd",dest_server="https://kubernetes.default.svc"} 1');
    expect(APP_RECONCILE_BUCKETS).toEqual([0.25, 0.5, 1, 2, 4, 8, 16]);
  });

  it("argocd_app_k8s_request_total counts each request by its labels", async () => {
    const registry = new Registry();
    const metrics = new SyncEngineMetrics({ registry, list: () => [] });
    const labels = {
      namespace: "argocd",
      name: "web",
      project: "default",
      server: "https://kubernetes.default.svc",
      response_code: "200",
      verb: "Patch",
      resource_kind: "configmaps",
      resource_namespace: "web",
    };
    metrics.k8sRequest(labels);
    metrics.k8sRequest(labels);
    expect(await lines(registry, "argocd_app_k8s_request_total")).toEqual([
      'argocd_app_k8s_request_total{namespace="argocd",name="web",project="default",server="https://kubernetes.default.svc",response_code="200",verb="Patch",resource_kind="configmaps",resource_namespace="web"} 2',
    ]);
  });

  it.each([
    // name; the first source's repoURL; the label Argo CD's NormalizeGitURL gives for it
    {
      name: "an scp-like URL, without its .git and with a slash for its colon",
      repoURL: "git@GitHub.com:Org/Repo.git",
      repo: "git@github.com/org/repo",
    },
    { name: "an ssh:// URL, without the scheme", repoURL: "ssh://git@github.com/org/repo.git", repo: "git@github.com/org/repo" },
    { name: "a URL with a trailing slash, which stays", repoURL: "https://github.com/org/repo/", repo: "https://github.com/org/repo/" },
    { name: "a URL that does not parse, as empty", repoURL: "https://github.com:port/org/repo", repo: "" },
  ])("argocd_app_info: the repo label of $name", async ({ repoURL, repo }) => {
    const registry = new Registry();
    new SyncEngineMetrics({ registry, list: () => [app({ spec: { ...app().spec, source: { repoURL } } })] });
    expect((await lines(registry, "argocd_app_info"))[0]).toContain(`,repo="${repo}",`);
  });

  it("argocd_app_info: the repo label of a multi-source Application is its first source's, even beside spec.source", async () => {
    const registry = new Registry();
    const sources = [{ repoURL: "https://github.com/org/chart.git" }, { repoURL: "https://github.com/org/values.git", ref: "values" }];
    new SyncEngineMetrics({ registry, list: () => [app({ spec: { ...app().spec, sources } })] });
    expect((await lines(registry, "argocd_app_info"))[0]).toContain(`,repo="https://github.com/org/chart",`);
  });
});
