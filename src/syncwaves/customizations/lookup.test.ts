import { describe, expect, it } from "vitest";
import { healthScriptFor, systemIgnoreRules } from "./lookup.js";
import type { ResourceCustomizations, ResourceOverride } from "./types.js";

const custom = (entries: Record<string, ResourceOverride>): ResourceCustomizations => ({
  overrides: new Map(Object.entries(entries)),
  exclusions: [],
  inclusions: [],
});

describe("finding a kind's health script", () => {
  const c = custom({
    "argoproj.io/Rollout": { healthLua: "exact", useOpenLibs: true },
    "*.crossplane.io/*": { healthLua: "crossplane" },
    "*.io/*": { healthLua: "any io" },
    "*/*": { ignoreDifferences: { jsonPointers: ["/status"] } },
    ConfigMap: { healthLua: "core" },
    "apps/Deployment": { ignoreDifferences: { jsonPointers: ["/spec/replicas"] } },
  });
  it.each([
    // group and kind asked about, and the script (and key) found
    {
      name: "the exact key first",
      group: "argoproj.io",
      kind: "Rollout",
      want: { script: "exact", useOpenLibs: true, key: "argoproj.io/Rollout" },
    },
    {
      name: "a wildcard key, the first in key order",
      group: "pkg.crossplane.io",
      kind: "Provider",
      want: { script: "crossplane", useOpenLibs: false, key: "*.crossplane.io/*" },
    },
    {
      name: "a broader wildcard when the first does not match",
      group: "cert-manager.io",
      kind: "Certificate",
      want: { script: "any io", useOpenLibs: false, key: "*.io/*" },
    },
    { name: "a core kind by its bare name", group: "", kind: "ConfigMap", want: { script: "core", useOpenLibs: false, key: "ConfigMap" } },
    { name: "nothing for an override without a script", group: "apps", kind: "Deployment", want: undefined },
    { name: "nothing for a kind no key matches", group: "batch", kind: "Job", want: undefined },
  ])("$name", ({ group, kind, want }) => {
    expect(healthScriptFor(c, group, kind)).toEqual(want);
  });

  it("finds nothing without customizations", () => {
    expect(healthScriptFor(undefined, "argoproj.io", "Rollout")).toBeUndefined();
  });
});

describe("system-level ignore rules", () => {
  it("turns override keys into group and kind rules, in key order, leaving out those that ignore nothing", () => {
    const rules = systemIgnoreRules(
      custom({
        "apps/Deployment": { ignoreDifferences: { jsonPointers: ["/spec/replicas"] } },
        "*/*": { ignoreDifferences: { jqPathExpressions: [".metadata.labels.x"], managedFieldsManagers: ["m"] } },
        Service: { ignoreDifferences: { jsonPointers: ["/spec/clusterIP"] } },
        "batch/Job": { healthLua: "x" },
        "policy/PodDisruptionBudget": { ignoreDifferences: { managedFieldsManagers: ["only"] } },
      }),
    );
    expect(rules).toEqual([
      { group: "*", kind: "*", jqPathExpressions: [".metadata.labels.x"], managedFieldsManagers: ["m"] },
      { group: "", kind: "Service", jsonPointers: ["/spec/clusterIP"] },
      { group: "apps", kind: "Deployment", jsonPointers: ["/spec/replicas"] },
    ]);
  });

  it("has none without customizations", () => {
    expect(systemIgnoreRules(undefined)).toEqual([]);
  });
});
