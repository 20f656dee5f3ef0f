import { describe, expect, it } from "vitest";
import type { Application } from "../api/index.js";
import { finishedOperation, parseResource, requestProblem, syncExitCode, syncOperation, type SyncRequest } from "./app-sync.js";

const app = (extra: Partial<Application> = {}, spec: Partial<Application["spec"]> = {}): Application => ({
  metadata: { name: "guestbook", namespace: "argocd" },
  spec: {
    project: "default",
    destination: { server: "https://kubernetes.default.svc", namespace: "guestbook" },
    source: { repoURL: "https://r.example/x.git", path: "guestbook" },
    ...spec,
  },
  ...extra,
});

const plain: SyncRequest = { prune: false, dryRun: false, force: false, resources: [] };

describe("parseResource", () => {
  it("reads GROUP:KIND:NAME and GROUP:KIND:NAMESPACE/NAME, the group empty for core kinds", () => {
    expect(parseResource("apps:Deployment:web")).toEqual({ group: "apps", kind: "Deployment", name: "web" });
    expect(parseResource(":Service:dev/web")).toEqual({ group: "", kind: "Service", name: "web", namespace: "dev" });
  });
  it("refuses anything else", () => {
    for (const bad of ["Deployment:web", "apps::web", "apps:Deployment:", "a:b:c:d", "apps:Deployment:/web", "apps:Deployment:a/b/c"])
      expect(parseResource(bad), bad).toBeUndefined();
  });
});

describe("syncOperation", () => {
  it("is a user's sync with only what was asked", () => {
    expect(syncOperation(app(), plain, "alice")).toEqual({ sync: {}, initiatedBy: { username: "alice" } });
  });
  it("carries revision, prune, dry run, resources, force, and the Application's sync options and retry", () => {
    const a = app({}, { syncPolicy: { syncOptions: ["CreateNamespace=true"], retry: { limit: 2 } } });
    const req: SyncRequest = {
      revision: "v1.2.0",
      prune: true,
      dryRun: true,
      force: true,
      resources: [{ group: "apps", kind: "Deployment", name: "web" }],
    };
    expect(syncOperation(a, req, "alice")).toEqual({
      sync: {
        revision: "v1.2.0",
        prune: true,
        dryRun: true,
        resources: [{ group: "apps", kind: "Deployment", name: "web" }],
        syncOptions: ["CreateNamespace=true"],
        syncStrategy: { hook: { force: true } },
      },
      initiatedBy: { username: "alice" },
      retry: { limit: 2 },
    });
  });
  it("uses the sync options given instead of the Application's", () => {
    const a = app({}, { syncPolicy: { syncOptions: ["CreateNamespace=true"] } });
    expect(syncOperation(a, { ...plain, syncOptions: ["ServerSideApply=true"] }, "u").sync?.syncOptions).toEqual(["ServerSideApply=true"]);
  });
});

describe("requestProblem", () => {
  it("refuses --revision for a multi-source Application", () => {
    const multi = app({}, { source: undefined, sources: [{ repoURL: "https://r.example/x.git", path: "a" }] });
    expect(requestProblem(multi, { ...plain, revision: "main" })).toMatch(/one source/);
    expect(requestProblem(multi, plain)).toBeUndefined();
    expect(requestProblem(app(), { ...plain, revision: "main" })).toBeUndefined();
  });
});

describe("finishedOperation", () => {
  const state = (phase: string) => ({ operation: { sync: {} }, phase, message: "done", startedAt: "2026-01-01T00:00:00Z" });
  it("is the final phase once the operation is off the Application", () => {
    expect(finishedOperation(app({ status: { operationState: state("Failed") } }))).toEqual({ phase: "Failed", message: "done" });
  });
  it("is undefined while the operation is on it, runs, or has not started", () => {
    expect(finishedOperation(app({ operation: { sync: {} }, status: { operationState: state("Succeeded") } }))).toBeUndefined();
    expect(finishedOperation(app({ status: { operationState: state("Running") } }))).toBeUndefined();
    expect(finishedOperation(app())).toBeUndefined();
  });
  it("exits 0 only for Succeeded", () => {
    expect(syncExitCode("Succeeded")).toBe(0);
    expect(syncExitCode("Failed")).toBe(1);
    expect(syncExitCode("Error")).toBe(1);
  });
});
