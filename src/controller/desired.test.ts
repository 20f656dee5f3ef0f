import { describe, expect, it } from "vitest";
import type { ApplicationSet } from "../api/index.js";
import { appChange, desiredFrom, desiredShared } from "./desired.js";
import { jqPathTokens } from "../json/index.js";
import { appSet, live, rendered, settings } from "../../test/support/controller-builders.js";

const owner = appSet("guestbook");

interface Row {
  /** What the row shows. */
  name: string;
  /** The ApplicationSet (preserved fields, ignore rules). */
  set?: ApplicationSet;
  /** The rendered Application. */
  app: ReturnType<typeof rendered>;
  /** The live Application. */
  liveApp: ReturnType<typeof live>;
  /** Controller-wide preserved keys. */
  global?: { preservedAnnotations?: string[]; preservedLabels?: string[] };
  /** The expected merge patch, or null for no write. */
  patch: Record<string, unknown> | null;
}

const rows: Row[] = [
  {
    name: "keeps Argo CD's default preserved annotations from the live Application",
    app: rendered("a"),
    liveApp: live("a", owner, {
      metadata: { annotations: { "notified.notifications.argoproj.io": "{}", "argocd.argoproj.io/refresh": "hard" } },
    }),
    patch: null,
  },
  {
    name: "drops a live label the template does not declare",
    app: rendered("a"),
    liveApp: live("a", owner, { metadata: { labels: { stray: "x" } } }),
    patch: { metadata: { labels: { stray: null }, resourceVersion: "5" } },
  },
  {
    name: "keeps a live label listed in the ApplicationSet's preservedFields, over the template's value",
    set: appSet("guestbook", { spec: { preservedFields: { labels: ["team"] } } }),
    app: rendered("a", { metadata: { labels: { team: "template" } } }),
    liveApp: live("a", owner, { metadata: { labels: { team: "live" } } }),
    patch: null,
  },
  {
    name: "keeps a live annotation listed in --preserved-annotations",
    app: rendered("a"),
    liveApp: live("a", owner, { metadata: { annotations: { keep: "me" } } }),
    global: { preservedAnnotations: ["keep"] },
    patch: null,
  },
  {
    name: "keeps PreDelete and PostDelete finalizers by prefix",
    app: rendered("a"),
    liveApp: live("a", owner, {
      metadata: { finalizers: ["resources-finalizer.argocd.argoproj.io", "pre-delete-finalizer.argocd.argoproj.io/cleanup"] },
    }),
    patch: null,
  },
  {
    name: "drops other live finalizers",
    app: rendered("a"),
    liveApp: live("a", owner, { metadata: { finalizers: ["resources-finalizer.argocd.argoproj.io", "example.com/other"] } }),
    patch: { metadata: { finalizers: ["resources-finalizer.argocd.argoproj.io"], resourceVersion: "5" } },
  },
  {
    name: "patches only the changed spec field, guarded by the live resourceVersion",
    app: rendered("a", {
      spec: { source: { repoURL: "https://github.com/argoproj/argocd-example-apps", path: "guestbook", targetRevision: "v2" } },
    }),
    liveApp: live("a", owner),
    patch: { spec: { source: { targetRevision: "v2" } }, metadata: { resourceVersion: "5" } },
  },
  {
    name: "keeps the live value of a field ignored by a JSON pointer",
    set: appSet("guestbook", { spec: { ignoreApplicationDifferences: [{ jsonPointers: ["/spec/source/targetRevision"] }] } }),
    app: rendered("a", {
      spec: { source: { repoURL: "https://github.com/argoproj/argocd-example-apps", path: "guestbook", targetRevision: "v2" } },
    }),
    liveApp: live("a", owner),
    patch: null,
  },
  {
    name: "keeps the live value of a field ignored by a jq path for the named Application only",
    set: appSet("guestbook", {
      spec: { ignoreApplicationDifferences: [{ name: "b", jqPathExpressions: [".spec.source.targetRevision"] }] },
    }),
    app: rendered("a", {
      spec: { source: { repoURL: "https://github.com/argoproj/argocd-example-apps", path: "guestbook", targetRevision: "v2" } },
    }),
    liveApp: live("a", owner),
    patch: { spec: { source: { targetRevision: "v2" } }, metadata: { resourceVersion: "5" } },
  },
  {
    name: "treats an empty project as default and an empty sync policy as absent",
    app: rendered("a", { spec: { project: "", syncPolicy: { syncOptions: [] } } }),
    liveApp: live("a", owner),
    patch: null,
  },
  {
    name: "writes automated.enabled: false over a live automated block without it (autosync off, issue of RollingSync switches)",
    app: rendered("a", { spec: { syncPolicy: { automated: { enabled: false, prune: true } } } }),
    liveApp: live("a", owner, { spec: { syncPolicy: { automated: { prune: true } } } }),
    patch: { spec: { syncPolicy: { automated: { enabled: false } } }, metadata: { resourceVersion: "5" } },
  },
  {
    name: "writes automated: {} (autosync on) where the live Application has no sync policy",
    app: rendered("a", { spec: { syncPolicy: { automated: {} } } }),
    liveApp: live("a", owner),
    patch: { spec: { syncPolicy: { automated: {} } }, metadata: { resourceVersion: "5" } },
  },
  {
    name: "writes revisionHistoryLimit: 0",
    app: rendered("a", { spec: { revisionHistoryLimit: 0 } }),
    liveApp: live("a", owner),
    patch: { spec: { revisionHistoryLimit: 0 }, metadata: { resourceVersion: "5" } },
  },
  {
    name: "writes a label whose value is empty",
    app: rendered("a", { metadata: { labels: { team: "" } } }),
    liveApp: live("a", owner),
    patch: { metadata: { labels: { team: "" }, resourceVersion: "5" } },
  },
  {
    name: "drops a live annotation whose value is empty when the template does not declare it",
    app: rendered("a"),
    liveApp: live("a", owner, { metadata: { annotations: { note: "" } } }),
    patch: { metadata: { annotations: { note: null }, resourceVersion: "5" } },
  },
  {
    name: "writes nothing for zero-valued blocks the live Application lacks",
    app: rendered("a", {
      spec: {
        source: {
          repoURL: "https://github.com/argoproj/argocd-example-apps",
          path: "guestbook",
          targetRevision: "HEAD",
          directory: { recurse: false },
          helm: { passCredentials: false },
          kustomize: { forceCommonLabels: false },
        },
      },
    }),
    liveApp: live("a", owner),
    patch: null,
  },
  {
    name: "writes nothing when the live Application holds plain zeros Go omits (forceString: false)",
    app: rendered("a", {
      spec: {
        source: {
          repoURL: "https://github.com/argoproj/argocd-example-apps",
          path: "guestbook",
          targetRevision: "HEAD",
          helm: { parameters: [{ name: "a", value: "1" }] },
        },
      },
    }),
    liveApp: live("a", owner, {
      spec: {
        source: {
          repoURL: "https://github.com/argoproj/argocd-example-apps",
          path: "guestbook",
          targetRevision: "HEAD",
          helm: { parameters: [{ name: "a", value: "1", forceString: false }], skipCrds: false },
        },
      },
    }),
    patch: null,
  },
  {
    name: "replaces the owner reference of a recreated ApplicationSet with the same name",
    app: rendered("a"),
    liveApp: live("a", appSet("guestbook", { metadata: { uid: "old-uid" } })),
    patch: {
      metadata: {
        ownerReferences: [
          {
            apiVersion: "argoproj.io/v1alpha1",
            kind: "ApplicationSet",
            name: "guestbook",
            uid: "uid-guestbook",
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
        resourceVersion: "5",
      },
    },
  },
];

describe("appChange", () => {
  it.each(rows)("$name", ({ set, app, liveApp, global, patch }) => {
    const d = desiredFrom(app, set ?? owner, settings(global));
    const change = appChange(d, liveApp);
    expect(change.kind === "update" ? change.patch : change.kind === "none" ? null : change).toEqual(patch);
  });

  it("shares one owner reference, one list of preserved keys and one frozen status among an ApplicationSet's Applications", () => {
    const set = appSet("guestbook", { spec: { preservedFields: { labels: ["team"] } } });
    const shared = desiredShared(set, settings({ preservedAnnotations: ["keep"] }));
    const [a, b] = ["a", "b"].map((n) => desiredFrom(rendered(n), set, settings({ preservedAnnotations: ["keep"] }), shared));
    expect(a!.owner).toBe(b!.owner);
    expect(a!.preserveAnnotations).toBe(b!.preserveAnnotations);
    expect(a!.preserveLabels).toEqual(["team"]);
    expect(a!.preserveAnnotations).toContain("keep");
    const [ca, cb] = [a!, b!].map((d) => appChange(d, undefined));
    const status = (c: typeof ca) => (c?.kind === "create" ? c.object["status"] : undefined);
    expect(status(ca)).toBe(status(cb));
    expect(Object.isFrozen((status(ca) as { sync: { comparedTo: object } }).sync.comparedTo)).toBe(true);
    // Built without the shared part, the desired form is the same.
    expect(desiredFrom(rendered("a"), set, settings({ preservedAnnotations: ["keep"] }))).toEqual(a);
  });

  it("creates a new Application with the controller owner reference and the template's metadata", () => {
    const d = desiredFrom(rendered("a", { metadata: { labels: { env: "prod" } } }), owner, settings());
    expect(appChange(d, undefined)).toEqual({
      kind: "create",
      object: {
        apiVersion: "argoproj.io/v1alpha1",
        kind: "Application",
        metadata: {
          name: "a",
          namespace: "argocd",
          labels: { env: "prod" },
          finalizers: ["resources-finalizer.argocd.argoproj.io"],
          ownerReferences: [
            {
              apiVersion: "argoproj.io/v1alpha1",
              kind: "ApplicationSet",
              name: "guestbook",
              uid: "uid-guestbook",
              controller: true,
              blockOwnerDeletion: true,
            },
          ],
        },
        spec: d.spec,
        // Go's zero ApplicationStatus, as Argo CD's controller writes it.
        status: {
          health: {},
          sourceHydrator: {},
          summary: {},
          sync: { comparedTo: { destination: {}, source: { repoURL: "" } }, status: "" },
        },
      },
    });
  });
});

describe("jqPathTokens", () => {
  it.each([
    { name: "a dotted path", expr: ".spec.source.targetRevision", want: ["spec", "source", "targetRevision"] },
    { name: "quoted keys and indexes", expr: '.metadata.annotations["a/b"].x[0]', want: ["metadata", "annotations", "a/b", "x", "0"] },
    { name: "a pipe it does not support", expr: '.spec.sources[] | select(.name == "x")', want: undefined },
  ])("reads $name", ({ expr, want }) => {
    expect(jqPathTokens(expr)).toEqual(want);
  });
});
