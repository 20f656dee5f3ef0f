import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import type { KustomizeSource } from "../../api/index.js";
import { buildArgs, componentCommand, editCommands, withPatches, type KustomizeInput } from "./kustomize-args.js";

const base: KustomizeInput = {
  kustomize: undefined,
  dir: "/w/overlays/prod",
  env: [{ name: "ARGOCD_APP_NAME", value: "web" }],
  kubeVersion: "v1.36.3",
  apiVersions: ["v1", "v1/Pod"],
};
const input = (kustomize: KustomizeSource, extra: Partial<KustomizeInput> = {}): KustomizeInput => ({ ...base, ...extra, kustomize });

describe("the kustomize commands", () => {
  it("runs no edit for a source without options", () => {
    expect(editCommands(base)).toEqual([]);
    expect(buildArgs(base)).toEqual(["build", "/w/overlays/prod"]);
  });

  it("edits in Argo CD's order, with $VARs in images and labels", () => {
    const got = editCommands(
      input({
        namespace: "prod",
        commonAnnotations: { team: "$ARGOCD_APP_NAME" },
        commonLabels: { b: "2", app: "$ARGOCD_APP_NAME" },
        replicas: [
          { name: "web", count: "3" },
          { name: "db", count: 1 },
        ],
        images: ["nginx=nginx:$ARGOCD_APP_NAME"],
        nameSuffix: "-s",
        namePrefix: "p-",
        forceCommonLabels: true,
        labelWithoutSelector: true,
      }),
    );
    expect(got).toEqual([
      ["edit", "set", "nameprefix", "--", "p-"],
      ["edit", "set", "namesuffix", "--", "-s"],
      ["edit", "set", "image", "nginx=nginx:web"],
      ["edit", "set", "replicas", "web=3", "db=1"],
      ["edit", "add", "label", "--force", "--without-selector", "app:web", "b:2"],
      ["edit", "add", "annotation", "team:$ARGOCD_APP_NAME"],
      ["edit", "set", "namespace", "--", "prod"],
    ]);
  });

  it("substitutes annotations only with commonAnnotationsEnvsubst", () => {
    expect(
      editCommands(input({ commonAnnotations: { t: "$ARGOCD_APP_NAME" }, commonAnnotationsEnvsubst: true, forceCommonAnnotations: true })),
    ).toEqual([["edit", "add", "annotation", "--force", "t:web"]]);
  });

  it("refuses a replica count that is not a whole number", () => {
    expect(() => editCommands(input({ replicas: [{ name: "web", count: "three" }] }))).toThrow(
      "expected integer value for count. Received: three",
    );
  });

  it("adds components, keeping only those that exist when asked", () => {
    expect(componentCommand(input({ components: ["../c1", "../c2"] }))).toEqual(["edit", "add", "component", "../c1", "../c2"]);
    const has = (c: string): boolean => c === "../c2";
    expect(componentCommand(input({ components: ["../c1", "../c2"], ignoreMissingComponents: true }, { hasKustomization: has }))).toEqual([
      "edit",
      "add",
      "component",
      "../c2",
    ]);
    expect(
      componentCommand(input({ components: ["../c1"], ignoreMissingComponents: true }, { hasKustomization: () => false })),
    ).toBeUndefined();
  });

  it("appends patches to those the kustomization has", () => {
    const text = "resources:\n  - ../../base\npatches:\n  - path: p.yaml\n";
    const got = parse(withPatches(text, { patches: [{ patch: "- op: add", target: { kind: "Deployment" } }] })) as Record<string, unknown>;
    expect(got).toEqual({
      resources: ["../../base"],
      patches: [{ path: "p.yaml" }, { patch: "- op: add", target: { kind: "Deployment" } }],
    });
    expect(parse(withPatches("resources: []\n", { patches: [{ path: "q.yaml" }] }))).toEqual({
      patches: [{ path: "q.yaml" }],
      resources: [],
    });
    expect(() => withPatches("patches: 3\n", { patches: [] })).toThrow("expected 'patches' field in kustomization.yaml to be []any");
  });

  it("adds build options, and the cluster's versions when they enable Helm", () => {
    expect(buildArgs({ ...base, buildOptions: "--load-restrictor LoadRestrictionsNone" })).toEqual([
      "build",
      "/w/overlays/prod",
      "--load-restrictor",
      "LoadRestrictionsNone",
    ]);
    expect(buildArgs({ ...base, buildOptions: "--enable-helm" })).toEqual([
      "build",
      "/w/overlays/prod",
      "--enable-helm",
      "--helm-kube-version",
      "1.36.3",
      "--helm-api-versions",
      "v1",
      "--helm-api-versions",
      "v1/Pod",
    ]);
  });
});
