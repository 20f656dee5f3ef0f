import { describe, expect, it } from "vitest";
import { isAppNamespacePermitted } from "./app-namespace.js";

describe("isAppNamespacePermitted (a project's sourceNamespaces)", () => {
  it.each([
    // sourceNamespaces: the project's list
    // appNamespace: where the Application lives
    // controller: the controller's namespace
    // permitted: expected
    {
      name: "an Application in the controller's namespace is permitted",
      sourceNamespaces: ["other-ns"],
      appNamespace: "argocd",
      controller: "argocd",
      permitted: true,
    },
    {
      name: "any controller namespace counts as its own",
      sourceNamespaces: ["other-ns"],
      appNamespace: "some-ns",
      controller: "some-ns",
      permitted: true,
    },
    {
      name: "an Application without a namespace is permitted",
      sourceNamespaces: ["other-ns"],
      appNamespace: "",
      controller: "argocd",
      permitted: true,
    },
    {
      name: "an empty list keeps the controller's namespace",
      sourceNamespaces: [],
      appNamespace: "argocd",
      controller: "argocd",
      permitted: true,
    },
    {
      name: "an empty list refuses another namespace",
      sourceNamespaces: [],
      appNamespace: "some-ns",
      controller: "argocd",
      permitted: false,
    },
    {
      name: "a listed namespace is permitted",
      sourceNamespaces: ["some-ns"],
      appNamespace: "some-ns",
      controller: "argocd",
      permitted: true,
    },
    {
      name: "an unlisted namespace is refused",
      sourceNamespaces: ["some-ns"],
      appNamespace: "other-ns",
      controller: "argocd",
      permitted: false,
    },
    {
      name: "a glob admits a namespace it matches",
      sourceNamespaces: ["some-*"],
      appNamespace: "some-ns1",
      controller: "argocd",
      permitted: true,
    },
    {
      name: "a glob admits another namespace it matches",
      sourceNamespaces: ["some-*"],
      appNamespace: "some-ns2",
      controller: "argocd",
      permitted: true,
    },
    {
      name: "a glob refuses a namespace it does not match",
      sourceNamespaces: ["some-*"],
      appNamespace: "someotherns",
      controller: "argocd",
      permitted: false,
    },
    {
      name: "a regular expression entry admits a namespace it finds",
      sourceNamespaces: ["/^team-[0-9]+$/"],
      appNamespace: "team-42",
      controller: "argocd",
      permitted: true,
    },
    {
      name: "an absent list refuses another namespace",
      sourceNamespaces: undefined,
      appNamespace: "team-42",
      controller: "argocd",
      permitted: false,
    },
  ])("$name", ({ sourceNamespaces, appNamespace, controller, permitted }) => {
    expect(isAppNamespacePermitted({ spec: { sourceNamespaces } }, appNamespace, controller)).toBe(permitted);
  });
});
