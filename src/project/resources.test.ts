import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AppProjectSpec } from "../api/appproject.js";
import { filepathMatch, isGroupKindNamePermitted } from "./resources.js";

describe("isGroupKindNamePermitted (a project's resource lists)", () => {
  it.each([
    // spec: the project's lists
    // group/kind/resource: the resource
    // namespaced: its scope
    // permitted: expected
    {
      name: "an empty namespaced whitelist refuses every namespaced kind",
      spec: { namespaceResourceWhitelist: [], namespaceResourceBlacklist: [{ group: "apps", kind: "Deployment" }] },
      group: "apps",
      kind: "ReplicaSet",
      resource: "",
      namespaced: true,
      permitted: false,
    },
    {
      name: "a blacklisted namespaced kind is refused",
      spec: { namespaceResourceWhitelist: [], namespaceResourceBlacklist: [{ group: "apps", kind: "Deployment" }] },
      group: "apps",
      kind: "Deployment",
      resource: "",
      namespaced: true,
      permitted: false,
    },
    {
      name: "a whitelisted namespaced kind is permitted",
      spec: {
        namespaceResourceWhitelist: [{ group: "apps", kind: "ReplicaSet" }],
        namespaceResourceBlacklist: [{ group: "apps", kind: "Deployment" }],
      },
      group: "apps",
      kind: "ReplicaSet",
      resource: "",
      namespaced: true,
      permitted: true,
    },
    {
      name: "a namespaced kind missing from the whitelist is refused",
      spec: { namespaceResourceWhitelist: [{ group: "apps", kind: "ReplicaSet" }] },
      group: "apps",
      kind: "Action",
      resource: "",
      namespaced: true,
      permitted: false,
    },
    {
      name: "a blacklisted cluster kind is refused",
      spec: { clusterResourceBlacklist: [{ group: "", kind: "Namespace" }] },
      group: "",
      kind: "Namespace",
      resource: "",
      namespaced: false,
      permitted: false,
    },
    {
      name: "a cluster blacklist of everything wins over a whitelist of everything",
      spec: { clusterResourceWhitelist: [{ group: "*", kind: "*" }], clusterResourceBlacklist: [{ group: "*", kind: "*" }] },
      group: "",
      kind: "Namespace",
      resource: "",
      namespaced: false,
      permitted: false,
    },
    {
      name: "cluster lists do not touch namespaced kinds",
      spec: { clusterResourceWhitelist: [{ group: "*", kind: "*" }], clusterResourceBlacklist: [{ group: "*", kind: "*" }] },
      group: "apps",
      kind: "Action",
      resource: "",
      namespaced: true,
      permitted: true,
    },
    {
      name: "an empty cluster whitelist refuses every cluster kind",
      spec: { clusterResourceWhitelist: [], namespaceResourceWhitelist: [{ group: "*", kind: "*" }] },
      group: "",
      kind: "Namespace",
      resource: "",
      namespaced: false,
      permitted: false,
    },
    {
      name: "an empty spec refuses cluster kinds",
      spec: {},
      group: "",
      kind: "Namespace",
      resource: "",
      namespaced: false,
      permitted: false,
    },
    {
      name: "an empty spec permits namespaced kinds",
      spec: {},
      group: "apps",
      kind: "Action",
      resource: "",
      namespaced: true,
      permitted: true,
    },
    {
      name: "a named cluster whitelist entry refuses other names",
      spec: { clusterResourceWhitelist: [{ group: "", kind: "Namespace", name: "team1-*" }] },
      group: "",
      kind: "Namespace",
      resource: "other-namespace",
      namespaced: false,
      permitted: false,
    },
    {
      name: "a named cluster whitelist entry permits a name it matches",
      spec: { clusterResourceWhitelist: [{ group: "", kind: "Namespace", name: "team1-*" }] },
      group: "",
      kind: "Namespace",
      resource: "team1-namespace",
      namespaced: false,
      permitted: true,
    },
    {
      name: "a named cluster blacklist entry refuses only the names it matches",
      spec: {
        clusterResourceWhitelist: [{ group: "*", kind: "*" }],
        clusterResourceBlacklist: [{ group: "", kind: "Namespace", name: "kube-*" }],
      },
      group: "",
      kind: "Namespace",
      resource: "team1",
      namespaced: false,
      permitted: true,
    },
    {
      name: "a group pattern matches the group, not the kind",
      spec: { clusterResourceWhitelist: [{ group: "*.k8s.io", kind: "ClusterRole" }] },
      group: "rbac.authorization.k8s.io",
      kind: "ClusterRole",
      resource: "",
      namespaced: false,
      permitted: true,
    },
    {
      name: "braces are literal in the filepath dialect",
      spec: { namespaceResourceWhitelist: [{ group: "{apps,batch}", kind: "*" }] },
      group: "apps",
      kind: "Deployment",
      resource: "",
      namespaced: true,
      permitted: false,
    },
  ] satisfies Array<{
    name: string;
    spec: AppProjectSpec;
    group: string;
    kind: string;
    resource: string;
    namespaced: boolean;
    permitted: boolean;
  }>)("$name", ({ spec, group, kind, resource, namespaced, permitted }) => {
    expect(isGroupKindNamePermitted({ spec }, { group, kind }, resource, namespaced)).toBe(permitted);
  });

  it.each([
    // pattern: a filepath.Match pattern
    // text: the value
    // match: expected
    { name: "a star does not cross a slash", pattern: "a*", text: "a/b", match: false },
    { name: "a caret class negates", pattern: "[^a]x", text: "bx", match: true },
    { name: "a malformed pattern matches nothing", pattern: "[", text: "[", match: false },
  ])("$name", ({ pattern, text, match }) => {
    expect(filepathMatch(pattern, text)).toBe(match);
  });

  it("lets a blacklist entry naming the kind win over any whitelist", () => {
    const word = fc.stringMatching(/^[a-z][a-zA-Z]{0,8}$/);
    const allow = fc.constantFrom({ group: "*", kind: "*" }, { group: "*", kind: "[A-Za-z]*" });
    fc.assert(
      fc.property(word, word, fc.array(allow, { maxLength: 3 }), fc.boolean(), (group, kind, whitelist, namespaced) => {
        const spec: AppProjectSpec = namespaced
          ? { namespaceResourceWhitelist: whitelist, namespaceResourceBlacklist: [{ group, kind }] }
          : { clusterResourceWhitelist: whitelist, clusterResourceBlacklist: [{ group, kind }] };
        expect(isGroupKindNamePermitted({ spec }, { group, kind }, "any", namespaced)).toBe(false);
      }),
    );
  });
});
