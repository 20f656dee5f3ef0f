import { describe, expect, it } from "vitest";
import { parseArgoCdConfigMap } from "./parse.js";
import { CustomizationReason, type ResourceOverride } from "./types.js";

const ROLLOUT_LUA = 'hs = {}\nhs.status = "Healthy"\nreturn hs\n';

describe("reading argocd-cm", () => {
  it("reads nothing from an absent or empty ConfigMap", () => {
    for (const data of [undefined, {}]) {
      const { customizations, errors } = parseArgoCdConfigMap(data);
      expect(customizations.overrides.size).toBe(0);
      expect(customizations.exclusions).toEqual([]);
      expect(customizations.inclusions).toEqual([]);
      expect(errors).toEqual([]);
    }
  });

  it.each<{ name: string; data: Record<string, string>; key: string; want: ResourceOverride }>([
    {
      name: "a split health key with its useOpenLibs key",
      data: {
        "resource.customizations.health.argoproj.io_Rollout": ROLLOUT_LUA,
        "resource.customizations.useOpenLibs.argoproj.io_Rollout": "true",
      },
      key: "argoproj.io/Rollout",
      want: { healthLua: ROLLOUT_LUA, useOpenLibs: true },
    },
    {
      name: "the combined YAML with health.lua and health.lua.useOpenLibs",
      data: {
        "resource.customizations": `cert-manager.io/Certificate:\n  health.lua: |\n    return {status="Healthy"}\n  health.lua.useOpenLibs: true\n`,
      },
      key: "cert-manager.io/Certificate",
      want: { healthLua: 'return {status="Healthy"}\n', useOpenLibs: true },
    },
    {
      name: "a split key on top of the combined YAML",
      data: {
        "resource.customizations": `apps/Deployment:\n  health.lua: old\n  ignoreDifferences: |\n    jsonPointers:\n    - /spec/replicas\n`,
        "resource.customizations.health.apps_Deployment": "new",
      },
      key: "apps/Deployment",
      want: { healthLua: "new", ignoreDifferences: { jsonPointers: ["/spec/replicas"] } },
    },
    {
      name: "a split ignoreDifferences key with every field",
      data: {
        "resource.customizations.ignoreDifferences.admissionregistration.k8s.io_MutatingWebhookConfiguration":
          "jqPathExpressions:\n- '.webhooks[]?.clientConfig.caBundle'\njsonPointers:\n- /webhooks/0/clientConfig/caBundle\nmanagedFieldsManagers:\n- kube-controller-manager\n",
      },
      key: "admissionregistration.k8s.io/MutatingWebhookConfiguration",
      want: {
        ignoreDifferences: {
          jsonPointers: ["/webhooks/0/clientConfig/caBundle"],
          jqPathExpressions: [".webhooks[]?.clientConfig.caBundle"],
          managedFieldsManagers: ["kube-controller-manager"],
        },
      },
    },
    {
      name: "the all key as every group and kind",
      data: { "resource.customizations.ignoreDifferences.all": "managedFieldsManagers:\n- kube-controller-manager\n" },
      key: "*/*",
      want: { ignoreDifferences: { managedFieldsManagers: ["kube-controller-manager"] } },
    },
    {
      name: "a wildcard health key",
      data: { "resource.customizations.health.*.crossplane.io_*": ROLLOUT_LUA },
      key: "*.crossplane.io/*",
      want: { healthLua: ROLLOUT_LUA },
    },
  ])("reads $name", ({ data, key, want }) => {
    const { customizations, errors } = parseArgoCdConfigMap(data);
    expect(errors).toEqual([]);
    expect(customizations.overrides.get(key)).toEqual(want);
  });

  it("reads the resource filters", () => {
    const { customizations, errors } = parseArgoCdConfigMap({
      "resource.exclusions": "- apiGroups:\n  - cilium.io\n  kinds:\n  - CiliumIdentity\n  clusters:\n  - '*'\n",
      "resource.inclusions": "- apiGroups: ['*']\n  kinds: [Deployment]\n  clusters: ['https://prod.example.com']\n",
    });
    expect(errors).toEqual([]);
    expect(customizations.exclusions).toEqual([{ apiGroups: ["cilium.io"], kinds: ["CiliumIdentity"], clusters: ["*"] }]);
    expect(customizations.inclusions).toEqual([{ apiGroups: ["*"], kinds: ["Deployment"], clusters: ["https://prod.example.com"] }]);
  });

  it.each([
    {
      name: "bad YAML in a split ignoreDifferences key",
      key: "resource.customizations.ignoreDifferences.apps_Deployment",
      value: "jsonPointers: [",
    },
    { name: "a non-list jsonPointers", key: "resource.customizations.ignoreDifferences.apps_Deployment", value: "jsonPointers: /spec" },
    { name: "a useOpenLibs that is no boolean", key: "resource.customizations.useOpenLibs.apps_Deployment", value: "maybe" },
    { name: "bad YAML in the combined key", key: "resource.customizations", value: "apps/Deployment: [" },
    { name: "a combined key that is a list", key: "resource.customizations", value: "- a\n- b\n" },
    { name: "bad YAML in the exclusions", key: "resource.exclusions", value: "- apiGroups: [" },
    { name: "exclusions that are a map", key: "resource.exclusions", value: "apiGroups: [apps]" },
    { name: "an inclusion with a non-list kinds", key: "resource.inclusions", value: "- kinds: Deployment" },
  ])("skips $name and keeps the other keys", ({ key, value }) => {
    const { customizations, errors } = parseArgoCdConfigMap({
      [key]: value,
      "resource.customizations.health.apps_StatefulSet": ROLLOUT_LUA,
    });
    expect(errors.map((e) => [e.key.startsWith(key), e.reason])).toEqual([[true, CustomizationReason.InvalidValue]]);
    expect(errors[0]?.message).toContain(key);
    expect(customizations.overrides.get("apps/StatefulSet")).toEqual({ healthLua: ROLLOUT_LUA });
  });

  it("skips one bad entry of the combined YAML and keeps the others", () => {
    const { customizations, errors } = parseArgoCdConfigMap({
      "resource.customizations": "apps/Deployment: just text\nbatch/Job:\n  health.lua: x\n",
    });
    expect(errors.map((e) => e.key)).toEqual(["resource.customizations: apps/Deployment"]);
    expect([...customizations.overrides.keys()]).toEqual(["batch/Job"]);
  });

  it("reports a malformed or unsupported split key without failing the others", () => {
    const { customizations, errors } = parseArgoCdConfigMap({
      "resource.customizations.health.a_b_c": ROLLOUT_LUA,
      "resource.customizations.colour.apps_Deployment": "blue",
      "resource.customizations.actions.apps_Deployment": "discovery.lua: ''",
      "resource.customizations.health.batch_Job": ROLLOUT_LUA,
    });
    expect(errors.map((e) => e.reason).sort()).toEqual([CustomizationReason.InvalidKey, CustomizationReason.UnsupportedType]);
    expect([...customizations.overrides.keys()]).toEqual(["batch/Job"]);
  });
});
