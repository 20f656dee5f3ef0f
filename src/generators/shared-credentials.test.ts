import { describe, expect, it } from "vitest";
import type { ApplicationSet } from "../api/index.js";
import { sharedCredentialsAllowed } from "./shared-credentials.js";
import type { GeneratorContext, GeneratorPorts } from "./types.js";

function appSet(namespace: string, project: string): ApplicationSet {
  return {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "ApplicationSet",
    metadata: { name: "s", namespace },
    spec: { generators: [], template: { metadata: {}, spec: { project, destination: {} } } },
  } as unknown as ApplicationSet;
}

type Projects = Record<string, string[]> | "failing";

function ctx(projects: Projects, secretsNamespace: string | null = "argocd"): GeneratorContext {
  const ports: GeneratorPorts = {
    ...(secretsNamespace === null ? {} : { secrets: { namespace: secretsNamespace, getSecret: () => Promise.resolve(undefined) } }),
    projects: {
      getAppProject: (name) =>
        projects === "failing"
          ? Promise.reject(new Error("forbidden"))
          : Promise.resolve(projects[name] === undefined ? undefined : { metadata: { name }, spec: { sourceNamespaces: projects[name] } }),
    },
  };
  return { ports } as unknown as GeneratorContext;
}

describe("sharedCredentialsAllowed", () => {
  it.each<{ name: string; ns: string; project: string; projects: Projects; want: boolean }>([
    // name; ApplicationSet namespace; its project; AppProjects (name → sourceNamespaces) or a failing reader; allowed
    { name: "the control plane's namespace", ns: "argocd", project: "p", projects: {}, want: true },
    { name: "a namespace the project takes", ns: "team-a", project: "p", projects: { p: ["team-*"] }, want: true },
    { name: "a namespace the project does not take", ns: "team-a", project: "p", projects: { p: ["team-b"] }, want: false },
    { name: "a project with no sourceNamespaces", ns: "team-a", project: "p", projects: { p: [] }, want: false },
    { name: "an empty project is the default project", ns: "team-a", project: "", projects: { default: ["*"] }, want: true },
    { name: "a templated project", ns: "team-a", project: "{{.p}}", projects: { p: ["*"] }, want: false },
    { name: "a missing project", ns: "team-a", project: "p", projects: {}, want: false },
    { name: "a project that cannot be read", ns: "team-a", project: "p", projects: "failing", want: false },
  ])("$name: $want", async ({ ns, project, projects, want }) => {
    await expect(sharedCredentialsAllowed(appSet(ns, project), ctx(projects))).resolves.toBe(want);
  });

  it("allows everything when no control plane namespace is known (an offline preview)", async () => {
    await expect(sharedCredentialsAllowed(appSet("team-a", "p"), ctx({}, null))).resolves.toBe(true);
  });
});
