import { describe, expect, it } from "vitest";
import { at, live, spec } from "../../test/unit/progressivesync/builders.js";
import { appRevisions, comparedToMatches, defaultSpecsEquivalent, disableAutosync, observeApp } from "./observe.js";

describe("observeApp", () => {
  it("reads the status the state machine needs", () => {
    const app = live("a", {
      sync: "Synced",
      health: "Progressing",
      revisions: ["r7"],
      reconciledAt: 5,
      operation: { phase: "Running", startedAt: 4 },
      conditions: ["UnknownError"],
      annotations: { "argocd.argoproj.io/refresh": "normal" },
    });
    expect(observeApp(app, spec(), defaultSpecsEquivalent)).toEqual({
      name: "a",
      syncStatus: "Synced",
      healthStatus: "Progressing",
      revisions: ["r7"],
      reconciledAt: at(5),
      operation: { phase: "Running", startedAt: at(4) },
      hasErrorCondition: true,
      reconciled: true,
      specChanged: false,
      refreshRequested: true,
      terminating: false,
    });
  });

  it.each([
    // name; live options; the desired spec; expected reconciled and specChanged
    { name: "never reconciled is not reconciled", o: { reconciledAt: null }, desired: spec(), reconciled: false, specChanged: false },
    { name: "comparedTo missing is not reconciled", o: { compared: false }, desired: spec(), reconciled: false, specChanged: false },
    {
      name: "a different desired spec is a spec change",
      o: {},
      desired: spec({ source: { repoURL: "https://other" } }),
      reconciled: true,
      specChanged: true,
    },
    { name: "no desired Application is no spec change", o: {}, desired: undefined, reconciled: true, specChanged: false },
    {
      name: "empty values and key order do not make a spec change",
      o: {},
      desired: {
        destination: { namespace: "guestbook", server: "https://kubernetes.default.svc" },
        source: { targetRevision: "HEAD", path: "guestbook", repoURL: "https://git.example/repo.git", helm: {} },
        project: "",
      },
      reconciled: true,
      specChanged: false,
    },
  ])("$name", ({ o, desired, reconciled, specChanged }) => {
    expect(observeApp(live("a", o), desired, defaultSpecsEquivalent)).toMatchObject({ reconciled, specChanged });
  });

  it("comparedTo that names the previous source is stale", () => {
    const app = live("a");
    app.status!.sync!.comparedTo = { source: { repoURL: "https://git.example/repo.git", path: "old" }, destination: app.spec.destination };
    expect(comparedToMatches(app)).toBe(false);
  });

  it("comparedTo with the server filled in for a destination given by name matches", () => {
    const app = live("a", { spec: spec({ destination: { name: "prod", namespace: "ns" } }) });
    app.status!.sync!.comparedTo = { source: app.spec.source, destination: { name: "prod", server: "https://1.2.3.4", namespace: "ns" } };
    expect(comparedToMatches(app)).toBe(true);
  });

  it.each([
    // name; sync status fields; expected revisions
    { name: "revisions win", sync: { status: "Synced", revisions: ["a", "b"], revision: "c" }, out: ["a", "b"] },
    { name: "revision alone", sync: { status: "Synced", revision: "c" }, out: ["c"] },
    { name: "neither", sync: { status: "Synced" }, out: [] },
  ])("appRevisions: $name", ({ sync, out }) => {
    const app = live("a");
    app.status!.sync = sync;
    expect(appRevisions(app)).toEqual(out);
  });

  it.each([
    // name; the source in the spec; the source Argo CD's application controller wrote to comparedTo (Go omits false plain fields)
    {
      name: "helm.skipCrds: false",
      specSource: { repoURL: "https://git.example/repo.git", path: "p", helm: { skipCrds: false, valueFiles: ["v.yaml"] } },
      compared: { repoURL: "https://git.example/repo.git", path: "p", helm: { valueFiles: ["v.yaml"] } },
    },
    {
      name: "parameters[].forceString: false",
      specSource: {
        repoURL: "https://git.example/repo.git",
        path: "p",
        helm: { parameters: [{ name: "a", value: "1", forceString: false }] },
      },
      compared: { repoURL: "https://git.example/repo.git", path: "p", helm: { parameters: [{ name: "a", value: "1" }] } },
    },
    {
      name: "directory.recurse: false beside include",
      specSource: { repoURL: "https://git.example/repo.git", path: "p", directory: { recurse: false, include: "*.yaml" } },
      compared: { repoURL: "https://git.example/repo.git", path: "p", directory: { include: "*.yaml", jsonnet: {} } },
    },
  ])("comparedTo written by Go matches a spec with $name", ({ specSource, compared }) => {
    const app = live("a", { spec: spec({ source: specSource }) });
    app.status!.sync!.comparedTo = { source: compared, destination: app.spec.destination };
    expect(comparedToMatches(app)).toBe(true);
    expect(observeApp(app, app.spec, defaultSpecsEquivalent)).toMatchObject({ reconciled: true, specChanged: false });
  });
});

describe("disableAutosync", () => {
  it.each([
    // name; the template's spec; expected spec, whether autosync was on, operation prune
    {
      name: "automated with prune is turned off, prune kept",
      s: { syncPolicy: { automated: { prune: true, selfHeal: true } } },
      out: { syncPolicy: { automated: { prune: true, selfHeal: true, enabled: false } } },
      was: true,
      prune: true,
    },
    {
      name: "automated already disabled stays as is and does not prune",
      s: { syncPolicy: { automated: { prune: true, enabled: false } } },
      out: { syncPolicy: { automated: { prune: true, enabled: false } } },
      was: false,
      prune: false,
    },
    {
      name: "no automated block is untouched",
      s: { syncPolicy: { syncOptions: ["A=b"] } },
      out: { syncPolicy: { syncOptions: ["A=b"] } },
      was: false,
      prune: false,
    },
    { name: "no syncPolicy is untouched", s: { project: "p" }, out: { project: "p" }, was: false, prune: false },
  ])("$name", ({ s, out, was, prune }) => {
    expect(disableAutosync(s)).toEqual({ spec: out, autosyncWasEnabled: was, prune });
  });
});
