import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { overrideKeyOf, parseSplitKey } from "./keys.js";
import { CustomizationError, CustomizationReason } from "./types.js";

/** Group and kind names without `_` (the key's separator). */
const name = fc.stringMatching(/^[A-Za-z0-9.*-]{1,20}$/);

describe("split customization keys", () => {
  it.each([
    // key, what it sets (or undefined when it is not a split key)
    {
      name: "a health key of a group and kind",
      key: "resource.customizations.health.argoproj.io_Rollout",
      want: { type: "health", overrideKey: "argoproj.io/Rollout" },
    },
    {
      name: "a core kind without a group",
      key: "resource.customizations.health.ConfigMap",
      want: { type: "health", overrideKey: "ConfigMap" },
    },
    {
      name: "a wildcard group and kind",
      key: "resource.customizations.health.*.example.com_*",
      want: { type: "health", overrideKey: "*.example.com/*" },
    },
    {
      name: "all is every group and kind",
      key: "resource.customizations.ignoreDifferences.all",
      want: { type: "ignoreDifferences", overrideKey: "*/*" },
    },
    {
      name: "useOpenLibs is its own type",
      key: "resource.customizations.useOpenLibs.cert-manager.io_Certificate",
      want: { type: "useOpenLibs", overrideKey: "cert-manager.io/Certificate" },
    },
    {
      name: "an empty group stays empty (and matches no core object)",
      key: "resource.customizations.health._Pod",
      want: { type: "health", overrideKey: "/Pod" },
    },
    { name: "the combined key is not a split key", key: "resource.customizations", want: undefined },
    { name: "a key without a group kind is not a split key", key: "resource.customizations.health", want: undefined },
    { name: "another setting is not a split key", key: "resource.exclusions", want: undefined },
  ])("reads $name", ({ key, want }) => {
    expect(parseSplitKey(key)).toEqual(want);
  });

  it.each([
    { name: "two underscores", key: "resource.customizations.health.a_b_c", reason: CustomizationReason.InvalidKey },
    { name: "an empty group kind", key: "resource.customizations.health.", reason: CustomizationReason.InvalidKey },
    { name: "an unknown type", key: "resource.customizations.colour.apps_Deployment", reason: CustomizationReason.UnsupportedType },
  ])("refuses a key with $name", ({ key, reason }) => {
    const got = parseSplitKey(key);
    expect(got).toBeInstanceOf(CustomizationError);
    expect((got as CustomizationError).reason).toBe(reason);
    expect((got as CustomizationError).key).toBe(key);
  });

  it("turns every <group>_<kind> into group/kind", () => {
    fc.assert(
      fc.property(name, name, fc.constantFrom("health", "useOpenLibs", "ignoreDifferences"), (group, kind, type) => {
        expect(parseSplitKey(`resource.customizations.${type}.${group}_${kind}`)).toEqual({ type, overrideKey: `${group}/${kind}` });
      }),
    );
  });

  it("keeps a lone kind as it is, except all", () => {
    fc.assert(
      fc.property(name, (kind) => {
        expect(overrideKeyOf(kind)).toBe(kind === "all" ? "*/*" : kind);
      }),
    );
  });

  it("refuses every group kind with more than one underscore", () => {
    fc.assert(
      fc.property(fc.array(name, { minLength: 3, maxLength: 5 }), (parts) => {
        expect(overrideKeyOf(parts.join("_"))).toBeUndefined();
      }),
    );
  });
});
