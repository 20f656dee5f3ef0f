import { describe, expect, it } from "vitest";
import type { Application, ApplicationSet } from "../api/index.js";
import { appRows, appSetRows, ownedBy, renderAppSetGet, renderAppSetList, table } from "./appset-view.js";

const appSet = (name: string, status: ApplicationSet["status"] = {}, namespace = "argocd"): ApplicationSet => ({
  metadata: { name, namespace, uid: `uid-${name}` },
  spec: {
    generators: [],
    template: {
      metadata: {},
      spec: { project: "default", destination: {}, source: { repoURL: "https://r.example/x.git", chart: "web" } },
    },
  },
  status,
});

const app = (name: string, owner: string | undefined, sync?: string, health?: string, namespace = "argocd"): Application => ({
  metadata: {
    name,
    namespace,
    ...(owner === undefined
      ? {}
      : { ownerReferences: [{ apiVersion: "argoproj.io/v1alpha1", kind: "ApplicationSet", name: owner, uid: "u", controller: true }] }),
  },
  spec: { project: "default", destination: {} },
  ...(sync === undefined ? {} : { status: { sync: { status: sync }, health: { status: health } } }),
});

describe("appSetRows", () => {
  it.each([
    // name; the Applications; the counts of the row of ApplicationSet "web"
    { name: "no Applications", apps: [], want: { applications: 0, synced: 0, healthy: 0 } },
    {
      name: "synced and healthy counted apart",
      apps: [app("a", "web", "Synced", "Progressing"), app("b", "web", "OutOfSync", "Healthy"), app("c", "web", "Synced", "Healthy")],
      want: { applications: 3, synced: 2, healthy: 2 },
    },
    {
      name: "only the Applications it controls, in its namespace",
      apps: [
        app("a", "web", "Synced", "Healthy"),
        app("b", "other"),
        app("c", undefined),
        app("d", "web", "Synced", "Healthy", "elsewhere"),
      ],
      want: { applications: 1, synced: 1, healthy: 1 },
    },
    { name: "an Application not yet compared", apps: [app("a", "web")], want: { applications: 1, synced: 0, healthy: 0 } },
  ])("$name", ({ apps, want }) => {
    expect(appSetRows([appSet("web")], apps)[0]).toMatchObject(want);
  });

  it("sorts by namespace and name, keeps only true conditions, and reads a chart as the path", () => {
    const rows = appSetRows(
      [
        appSet("b"),
        appSet("a", {
          conditions: [
            { type: "ErrorOccurred", status: "False", reason: "r", message: "m" },
            { type: "ResourcesUpToDate", status: "True", reason: "r", message: "m" },
          ],
        }),
        appSet("a", {}, "team"),
      ],
      [],
    );
    expect(rows.map((r) => `${r.namespace}/${r.name}`)).toEqual(["argocd/a", "argocd/b", "team/a"]);
    expect(rows[0]).toMatchObject({ conditions: ["ResourcesUpToDate"], path: "web", target: "", strategy: "AllAtOnce" });
  });
});

describe("renderAppSetList", () => {
  it("adds NAMESPACE first with -A and the template's columns with wide, dashes for empty cells", () => {
    const rows = appSetRows([appSet("web")], []);
    expect(renderAppSetList(rows, { wide: false, allNamespaces: true })).toEqual([
      "NAMESPACE  NAME  PROJECT  APPS  SYNCED  HEALTHY  HEALTH  CONDITIONS",
      "argocd     web   default  0     0       0        -       -",
    ]);
    expect(renderAppSetList(rows, { wide: true, allNamespaces: false })[1]).toBe(
      "web   default  0     0       0        -       -           -           AllAtOnce  https://r.example/x.git  web   -",
    );
  });
});

describe("appRows and renderAppSetGet", () => {
  it("joins the Applications with RollingSync's status, marking those only the status names", () => {
    const set = appSet("web", {
      applicationStatus: [
        { application: "web-b", status: "Pending", message: "waiting", step: "2" },
        { application: "web-gone", status: "Waiting", message: "", step: "1" },
      ],
    });
    const owned = ownedBy(set, [app("web-b", "web", "OutOfSync", "Healthy"), app("web-a", "web", "Synced", "Healthy"), app("x", "other")]);
    const rows = appRows(set, owned);
    expect(rows.map((r) => [r.name, r.present, r.step, r.rollout])).toEqual([
      ["web-a", true, "", ""],
      ["web-b", true, "2", "Pending"],
      ["web-gone", false, "1", "Waiting"],
    ]);
    expect(renderAppSetGet(set, rows, { wide: false }).slice(-4)).toEqual([
      "APPLICATION  SYNC       HEALTH   STEP  ROLLOUT",
      "web-a        Synced     Healthy  -     -",
      "web-b        OutOfSync  Healthy  2     Pending",
      "web-gone     (missing)  -        1     Waiting",
    ]);
  });

  it("says when there are no Applications, and leaves out the conditions table without conditions", () => {
    const lines = renderAppSetGet(appSet("web"), [], { wide: false });
    expect(lines).toContain("Health:       -");
    expect(lines.some((l) => l.startsWith("CONDITION"))).toBe(false);
    expect(lines.at(-1)).toBe("No Applications.");
  });
});

describe("table", () => {
  it("pads every column but the last", () => {
    expect(
      table(
        ["A", "BB"],
        [
          ["xxx", ""],
          ["y", "z"],
        ],
      ),
    ).toEqual(["A    BB", "xxx  -", "y    z"]);
  });
});
