import { beforeAll, describe, expect, it } from "vitest";
import { Annotation, type ApplicationSet } from "../../../src/api/index.js";
import { resources, type KubeApiClient } from "../../../src/kube/index.js";
import { cliPlane, type CliRun } from "./support/cli-plane.js";

// `appset list|get|refresh` through the CLI entry against a real apiserver with Argo CD's CRDs;
// the statuses are written through the status subresource as the controller and the sync engine
// write them. The screens of docs/cli.md come from these commands.

const NS = "argocd";
const TEAM = "team-a";
const plane = cliPlane();
let client: KubeApiClient;

const appset = (...args: string[]): Promise<CliRun> => plane.appset(args);

const template = (project: string): Record<string, unknown> => ({
  metadata: { name: "{{name}}" },
  spec: {
    project,
    source: { repoURL: "https://github.com/argoproj/argocd-example-apps", path: "guestbook", targetRevision: "HEAD" },
    destination: { server: "https://kubernetes.default.svc", namespace: "{{name}}" },
  },
});

async function createAppSet(
  namespace: string,
  name: string,
  spec: Record<string, unknown>,
  status: Record<string, unknown>,
): Promise<ApplicationSet> {
  const created = await client.create<ApplicationSet>(resources.ApplicationSets, {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "ApplicationSet",
    metadata: { name, namespace },
    spec: { generators: [{ list: { elements: [] } }], ...spec },
  } as unknown as ApplicationSet);
  await client.patchStatus(resources.ApplicationSets, { namespace, name }, { type: "merge", body: { status } });
  return created;
}

async function createApp(owner: ApplicationSet, name: string, sync: string, health: string): Promise<void> {
  const ns = owner.metadata.namespace!;
  await client.create(resources.Applications, {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "Application",
    metadata: {
      name,
      namespace: ns,
      ownerReferences: [
        {
          apiVersion: "argoproj.io/v1alpha1",
          kind: "ApplicationSet",
          name: owner.metadata.name!,
          uid: owner.metadata.uid!,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      project: "default",
      destination: { server: "https://kubernetes.default.svc", namespace: name },
      source: { repoURL: "https://example.com/r.git", path: "p" },
    },
  });
  // Argo CD's Application CRD has no status subresource: the status is written with the object.
  await client.patch(
    resources.Applications,
    { namespace: ns, name },
    { type: "merge", body: { status: { sync: { status: sync, revision: "3f2a1c9" }, health: { status: health } } } },
  );
}

const T = "2026-12-06T10:00:00Z";
const upToDate = {
  type: "ResourcesUpToDate",
  status: "True",
  reason: "ApplicationSetUpToDate",
  message: "All applications have been generated successfully",
  lastTransitionTime: T,
};
const progressing = {
  type: "RolloutProgressing",
  status: "True",
  reason: "ApplicationSetModified",
  message: "ApplicationSet is performing rollout of step 2",
  lastTransitionTime: T,
};

beforeAll(async () => {
  client = plane.client();
  for (const name of [NS, TEAM]) await client.create(resources.Namespaces, { metadata: { name } });
  const guestbook = await createAppSet(
    NS,
    "guestbook",
    { template: template("default") },
    {
      conditions: [upToDate],
      health: { status: "Healthy", message: "All applications have been generated successfully", lastTransitionTime: T },
    },
  );
  await createApp(guestbook, "guestbook-dev", "Synced", "Healthy");
  await createApp(guestbook, "guestbook-prod", "OutOfSync", "Progressing");
  const rolling = await createAppSet(
    NS,
    "rolling",
    {
      template: template("apps"),
      strategy: { type: "RollingSync", rollingSync: { steps: [{ matchExpressions: [] }, { matchExpressions: [] }] } },
      syncPolicy: { applicationsSync: "create-update" },
    },
    {
      conditions: [progressing],
      health: { status: "Progressing", message: "ApplicationSet is performing rollout of step 2", lastTransitionTime: T },
      applicationStatus: [
        {
          application: "rolling-eu",
          status: "Healthy",
          message: "Application resource became Healthy, updating status from Progressing to Healthy",
          step: "1",
          targetRevisions: ["3f2a1c9"],
          lastTransitionTime: T,
        },
        {
          application: "rolling-us",
          status: "Progressing",
          message: "Application resource completed a sync successfully, updating status from Pending to Progressing",
          step: "2",
          targetRevisions: ["3f2a1c9"],
          lastTransitionTime: T,
        },
      ],
    },
  );
  await createApp(rolling, "rolling-eu", "Synced", "Healthy");
  await createApp(rolling, "rolling-us", "Synced", "Progressing");
  await createAppSet(TEAM, "team-apps", { template: template("team-a") }, {});
}, 180_000);

describe("appset list", () => {
  it.each([
    // args; the lines printed
    {
      args: ["list", "-n", NS],
      want: [
        "NAME       PROJECT  APPS  SYNCED  HEALTHY  HEALTH       CONDITIONS",
        "guestbook  default  2     1       1        Healthy      ResourcesUpToDate",
        "rolling    apps     2     2       1        Progressing  RolloutProgressing",
      ],
    },
    {
      args: ["list", "-A"],
      want: [
        "NAMESPACE  NAME       PROJECT  APPS  SYNCED  HEALTHY  HEALTH       CONDITIONS",
        "argocd     guestbook  default  2     1       1        Healthy      ResourcesUpToDate",
        "argocd     rolling    apps     2     2       1        Progressing  RolloutProgressing",
        "team-a     team-apps  team-a   0     0       0        -            -",
      ],
    },
    {
      args: ["list", "-n", NS, "-o", "wide"],
      want: [
        "NAME       PROJECT  APPS  SYNCED  HEALTHY  HEALTH       CONDITIONS          SYNCPOLICY     STRATEGY     REPO                                             PATH       TARGET",
        "guestbook  default  2     1       1        Healthy      ResourcesUpToDate   -              AllAtOnce    https://github.com/argoproj/argocd-example-apps  guestbook  HEAD",
        "rolling    apps     2     2       1        Progressing  RolloutProgressing  create-update  RollingSync  https://github.com/argoproj/argocd-example-apps  guestbook  HEAD",
      ],
    },
    { args: ["list", "-A", "-o", "name"], want: ["argocd/guestbook", "argocd/rolling", "team-a/team-apps"] },
  ])("appset $args", async ({ args, want }) => {
    const r = await appset(...args);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out.trimEnd().split("\n")).toEqual(want);
  });

  it("prints a List of the ApplicationSets as JSON or YAML", async () => {
    const json = await appset("list", "-n", NS, "-o", "json");
    const list = JSON.parse(json.out) as { kind: string; items: ApplicationSet[] };
    expect(list.kind).toBe("List");
    expect(list.items.map((a) => a.metadata.name)).toEqual(["guestbook", "rolling"]);
    const yaml = await appset("list", "-n", TEAM, "-o", "yaml");
    expect(yaml.out).toContain("kind: List");
    expect(yaml.out).toContain("name: team-apps");
  });

  it("says so on stderr when a namespace has none", async () => {
    const r = await appset("list", "-n", "default");
    expect(r).toEqual({ code: 0, out: "", err: "No ApplicationSets found in namespace default.\n" });
  });
});

describe("appset get", () => {
  it("shows the ApplicationSet, its conditions and its Applications", async () => {
    const r = await appset("get", "guestbook", "-n", NS);
    expect(r.code).toBe(0);
    expect(r.out.trimEnd().split("\n")).toEqual([
      "Name:         argocd/guestbook",
      "Project:      default",
      "Sync policy:  -",
      "Strategy:     AllAtOnce",
      "Source:       https://github.com/argoproj/argocd-example-apps guestbook HEAD",
      "Health:       Healthy: All applications have been generated successfully",
      "",
      "CONDITION          STATUS  REASON                  MESSAGE                                            LAST TRANSITION",
      "ResourcesUpToDate  True    ApplicationSetUpToDate  All applications have been generated successfully  2026-12-06T10:00:00Z",
      "",
      "APPLICATION     SYNC       HEALTH",
      "guestbook-dev   Synced     Healthy",
      "guestbook-prod  OutOfSync  Progressing",
    ]);
  });

  it("adds the RollingSync step and status, and with -o wide the revision and message", async () => {
    const r = await appset("get", "rolling", "-n", NS, "-o", "wide");
    expect(r.code).toBe(0);
    const lines = r.out.trimEnd().split("\n");
    expect(lines).toContain("Strategy:     RollingSync (2 steps)");
    expect(lines.slice(-3)).toEqual([
      "APPLICATION  SYNC    HEALTH       STEP  ROLLOUT      REVISION  MESSAGE",
      "rolling-eu   Synced  Healthy      1     Healthy      3f2a1c9   Application resource became Healthy, updating status from Progressing to Healthy",
      "rolling-us   Synced  Progressing  2     Progressing  3f2a1c9   Application resource completed a sync successfully, updating status from Pending to Progressing",
    ]);
  });

  it("prints the ApplicationSet itself as YAML", async () => {
    const r = await appset("get", "team-apps", "-n", TEAM, "-o", "yaml");
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^apiVersion: argoproj.io\/v1alpha1\nkind: ApplicationSet\n/);
  });

  it.each([
    // args; exit code; what stderr holds
    { args: ["get", "nope", "-n", NS], code: 1, err: "appset get: ApplicationSet nope not found in namespace argocd" },
    { args: ["get", "-n", NS], code: 2, err: "appset get takes one ApplicationSet name" },
    { args: ["get", "guestbook", "-n", NS, "-o", "name"], code: 2, err: 'unknown output format "name"' },
    { args: ["list", "-A", "-n", NS], code: 2, err: "--all-namespaces and --namespace exclude each other" },
    { args: ["get", "guestbook", "--wait"], code: 2, err: "Unknown option '--wait'" },
  ])("appset $args exits $code", async ({ args, code, err }) => {
    const r = await appset(...args);
    expect(r.code).toBe(code);
    expect(r.err).toContain(err);
    expect(r.out).toBe("");
  });
});

describe("appset refresh", () => {
  const annotations = async (): Promise<Record<string, string>> =>
    (await client.get<ApplicationSet>(resources.ApplicationSets, { namespace: NS, name: "guestbook" })).metadata.annotations ?? {};
  const removeAnnotation = (): Promise<unknown> =>
    client.patch(
      resources.ApplicationSets,
      { namespace: NS, name: "guestbook" },
      { type: "merge", body: { metadata: { annotations: { [Annotation.ApplicationSetRefresh]: null } } } },
    );

  it("sets the refresh annotation the controller removes once it has reconciled", async () => {
    const r = await appset("refresh", "guestbook", "-n", NS);
    expect(r.code).toBe(0);
    expect(r.out).toBe("Asked the controller to refresh ApplicationSet guestbook (namespace argocd)\n");
    expect((await annotations())[Annotation.ApplicationSetRefresh]).toBe("true");
    await removeAnnotation();
  });

  it("--wait returns once the annotation is gone", async () => {
    const waiting = appset("refresh", "guestbook", "-n", NS, "--wait", "--timeout", "20s");
    // The controller's part: remove the annotation once it is there.
    for (let i = 0; i < 200 && (await annotations())[Annotation.ApplicationSetRefresh] === undefined; i++)
      await new Promise((r) => setTimeout(r, 50));
    await removeAnnotation();
    const r = await waiting;
    expect(r.code).toBe(0);
    expect(r.out).toContain("ApplicationSet guestbook was reconciled\n");
  });

  it("--wait times out with exit 1 when no controller removes it", async () => {
    const r = await appset("refresh", "guestbook", "-n", NS, "--wait", "--timeout", "1s");
    expect(r.code).toBe(1);
    expect(r.err).toContain("appset refresh: timed out after 1s");
    await removeAnnotation();
  });

  it("fails for an ApplicationSet that does not exist, writing nothing", async () => {
    const r = await appset("refresh", "nope", "-n", NS);
    expect(r.code).toBe(1);
    expect(r.err).toBe("appset refresh: ApplicationSet nope not found in namespace argocd\n");
  });
});
