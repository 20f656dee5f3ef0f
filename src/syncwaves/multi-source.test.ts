import { describe, expect, it } from "vitest";
import type { Application, ApplicationSource, OperationState } from "../api/index.js";
import { AppSetError } from "../errors.js";
import { resources, type KubeObject, type ResourceDescriptor } from "../kube/index.js";
import { FakeKubeClient } from "../../test/support/fake-kube-client.js";
import { application, obj } from "../../test/unit/syncwaves/builders.js";
import { comparisonErrorStatus, nextApplication, type AppUpdate } from "./app-status.js";
import { autoSync } from "./automated.js";
import type { ClusterAccess } from "./destinations.js";
import { MANIFEST_ERROR, type ManifestSource, type Manifests, type ReadOptions } from "./manifests.js";
import { loadTargetMessage, observe } from "./observe.js";
import { appendHistory } from "./operation.js";
import { pinnedRevisions, withCompared } from "./reconcile-types.js";

const chart: ApplicationSource = {
  repoURL: "https://git.example.com/charts.git",
  path: "web",
  targetRevision: "main",
  helm: { valueFiles: ["$values/envs/prod.yaml"] },
};
const values: ApplicationSource = { repoURL: "https://git.example.com/values.git", targetRevision: "main", ref: "values" };
const plain: ApplicationSource = { repoURL: "https://git.example.com/plain.git", path: "k8s", targetRevision: "main" };

const multi = (over: Partial<Application> = {}): Application => {
  const app = application(over);
  const { source: _s, ...spec } = app.spec;
  return { ...app, spec: { ...spec, sources: [chart, values, plain] } };
};

const update = (over: Partial<AppUpdate> = {}): AppUpdate => ({
  state: undefined,
  operation: undefined,
  comparison: { sync: "Synced", health: { status: "Healthy" }, resources: [], modified: new Map() },
  revision: "",
  source: chart,
  deletionHooks: { pre: false, post: false },
  nowMs: Date.UTC(2030, 0, 1),
  ...over,
});

describe("the status of a multi-source Application", () => {
  it("records one revision and one source type per source, and the sources compared", () => {
    const app = multi({ status: { sourceType: "Helm" } });
    const next = nextApplication(app, update({ multiSource: { revisions: ["c1", "v1", "p1"], sourceTypes: ["Helm", "", "Directory"] } }));
    expect(next.status?.sync).toEqual({
      status: "Synced",
      comparedTo: { source: { repoURL: "" }, destination: app.spec.destination, sources: [chart, values, plain] },
      revisions: ["c1", "v1", "p1"],
    });
    expect(next.status?.sourceTypes).toEqual(["Helm", "", "Directory"]);
    expect(next.status?.sourceType).toBeUndefined();
  });

  it("leaves a single-source Application's status as before", () => {
    const app = application({ status: { sourceTypes: ["Helm"] } });
    const next = nextApplication(app, update({ revision: "abc", source: app.spec.source, sourceType: "Directory" }));
    expect(next.status?.sync).toEqual({
      status: "Synced",
      revision: "abc",
      comparedTo: { source: app.spec.source, destination: app.spec.destination },
    });
    expect(next.status?.sourceType).toBe("Directory");
    expect(next.status?.sourceTypes).toBeUndefined();
  });

  it("reports each source's targetRevision when the comparison fails", () => {
    expect(comparisonErrorStatus(multi(), "boom", Date.UTC(2030, 0, 1)).sync?.revisions).toEqual(["main", "main", "main"]);
  });
});

describe("a multi-source sync's result and history", () => {
  const observed = { revision: "", revisions: ["c1", "v1", "p1"], multiSource: true };
  const running: OperationState = { operation: { sync: {} }, phase: "Running", startedAt: "2030-01-01T00:00:00Z" };

  it("names the sources and their revisions, the first source as source, and revision empty", () => {
    expect(withCompared(multi(), running, observed).syncResult).toEqual({
      revision: "",
      source: chart,
      sources: [chart, values, plain],
      revisions: ["c1", "v1", "p1"],
    });
  });

  it("takes the sources an operation names, with an empty source when it names none (an automated sync)", () => {
    const state = { ...running, operation: { sync: { sources: [chart, values, plain], revisions: ["c0", "v0", "p0"] } } };
    expect(withCompared(multi(), state, observed).syncResult).toMatchObject({ source: { repoURL: "" }, sources: [chart, values, plain] });
  });

  it.each([
    { name: "no operation: the targets", state: undefined, want: {} },
    {
      name: "the revisions an operation asks for",
      state: { ...running, operation: { sync: { revisions: ["a", "b", "c"] } } },
      want: { revisions: ["a", "b", "c"] },
    },
    {
      name: "the revisions the sync resolved, before those asked for",
      state: { ...running, operation: { sync: { revisions: ["a", "b", "c"] } }, syncResult: { revision: "", revisions: ["x", "y", "z"] } },
      want: { revisions: ["x", "y", "z"] },
    },
  ])("a running sync reads at $name", ({ state, want }) => {
    expect(pinnedRevisions(multi(), state)).toEqual(want);
  });

  it("records revisions and sources in the history entry", () => {
    const done: OperationState = {
      ...withCompared(multi(), running, observed),
      phase: "Succeeded",
      operation: { sync: {}, initiatedBy: { username: "me" } },
    };
    expect(appendHistory([], done, { nowMs: Date.UTC(2030, 0, 1, 0, 1) })).toEqual([
      {
        id: 0,
        deployedAt: "2030-01-01T00:01:00Z",
        deployStartedAt: "2030-01-01T00:00:00Z",
        source: { repoURL: "" },
        sources: [chart, values, plain],
        revisions: ["c1", "v1", "p1"],
        initiatedBy: { username: "me" },
      },
    ]);
  });
});

describe("automated sync of a multi-source Application", () => {
  const automated = (status: Application["status"] = {}): Application =>
    multi({ spec: { ...multi().spec, syncPolicy: { automated: {} } }, status });
  const input = (app: Application) => ({
    app,
    sync: "OutOfSync" as const,
    resources: [{ kind: "ConfigMap", name: "a", status: "OutOfSync" }],
    revision: "",
    revisions: ["c1", "v1", "p1"],
    nowMs: 0,
  });

  it("asks for the sources and their revisions", () => {
    const decision = autoSync(input(automated()));
    expect(decision.kind === "start" ? decision.operation.sync : undefined).toEqual({
      sources: [chart, values, plain],
      revisions: ["c1", "v1", "p1"],
    });
  });

  it("does not try again revisions whose sync failed, naming them all", () => {
    const last: OperationState = {
      operation: { sync: {} },
      phase: "Failed",
      message: "one or more objects failed to apply",
      startedAt: "2030-01-01T00:00:00Z",
      syncResult: { revision: "", revisions: ["c1", "v1", "p1"], sources: [chart, values, plain] },
    };
    expect(autoSync(input(automated({ operationState: last })))).toEqual({
      kind: "error",
      message: "Failed last sync attempt to [c1 v1 p1]: one or more objects failed to apply",
    });
  });
});

/** A manifest source of fixed objects per repository; a ref-only source is resolved, never read. */
class FixedSource implements ManifestSource {
  readonly reads: { repoURL: string; revision: string | undefined; refs: string[] }[] = [];
  constructor(private readonly fail?: string) {}
  read(_app: Application, source: ApplicationSource, revision?: string, options?: ReadOptions): Promise<Manifests> {
    this.reads.push({ repoURL: source.repoURL, revision, refs: [...(options?.refSources?.keys() ?? [])] });
    if (source.repoURL === this.fail) return Promise.reject(new AppSetError(MANIFEST_ERROR, "no such path"));
    const name = source.repoURL.replace(/^.*\/|\.git$/g, "");
    const sourceType = source.helm ? "Helm" : undefined;
    return Promise.resolve({
      revision: `${name}-${revision ?? "head"}`,
      objects: [obj("ConfigMap", name, { namespace: "web" })],
      sourceType,
    });
  }
  revisionOf(source: ApplicationSource, revision?: string): Promise<string> {
    return Promise.resolve(`ref-${revision ?? source.targetRevision ?? ""}`);
  }
}

async function observeWith(source: ManifestSource, revisions?: string[]): ReturnType<typeof observe> {
  const kinds: Record<string, ResourceDescriptor> = { ConfigMap: resources.ConfigMaps };
  const access = { id: "local", client: new FakeKubeClient(), resolve: (o: KubeObject) => Promise.resolve(kinds[o.kind ?? ""]!) };
  return observe({
    app: multi(),
    access: access as unknown as ClusterAccess,
    trackingName: "shop",
    source,
    ...(revisions ? { revisions } : {}),
  });
}

describe("reading every source of a multi-source Application", () => {
  it("renders each source in order, concatenates their objects, and only resolves a ref-only source", async () => {
    const source = new FixedSource();
    const o = await observeWith(source);
    expect(o.targets.map((t) => t.metadata?.name)).toEqual(["charts", "plain"]);
    expect(o.revisions).toEqual(["charts-head", "ref-main", "plain-head"]);
    expect(o.sourceTypes).toEqual(["Helm", "", "Directory"]);
    expect(o.revision).toBe("");
    expect(o.multiSource).toBe(true);
    expect(source.reads.map((r) => r.refs)).toEqual([["$values"], ["$values"]]);
  });

  it("reads each source at the revision a sync pinned", async () => {
    const source = new FixedSource();
    const o = await observeWith(source, ["c9", "v9", "p9"]);
    expect(o.revisions).toEqual(["charts-c9", "ref-v9", "plain-p9"]);
  });

  it("names the source that failed in the comparison error", async () => {
    const err = await observeWith(new FixedSource(plain.repoURL)).catch((e: unknown) => e);
    expect(loadTargetMessage(err, (err as Error).message)).toBe(
      "Failed to load target state: failed to generate manifest for source 3 of 3: no such path",
    );
  });

  it("reports invalid refs before any source is read", async () => {
    const source = new FixedSource();
    const app = multi();
    const bad = { ...app, spec: { ...app.spec, sources: [chart, { ...values, ref: "a.b" }] } };
    const kinds = { ConfigMap: resources.ConfigMaps };
    const access = { id: "local", client: new FakeKubeClient(), resolve: (o: KubeObject) => Promise.resolve(kinds[o.kind as "ConfigMap"]) };
    const err = await observe({ app: bad, access: access as unknown as ClusterAccess, trackingName: "shop", source }).catch(
      (e: unknown) => e,
    );
    expect(loadTargetMessage(err, (err as Error).message)).toBe(
      "Failed to load target state: failed to get ref sources: sources.ref a.b cannot contain any special characters except '_' and '-'",
    );
    expect(source.reads).toEqual([]);
  });
});
