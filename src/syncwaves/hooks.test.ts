import { describe, expect, it } from "vitest";
import { obj } from "../../test/unit/syncwaves/builders.js";
import { deletePolicies, hookName, hookPhases, hookTypes, isDeletionOnlyHook, isGarbageHook, isHook, isSkip, parseCsv } from "./hooks.js";

const HOOK = "argocd.argoproj.io/hook";
const HELM = "helm.sh/hook";
const POLICY = "argocd.argoproj.io/hook-delete-policy";
const HELM_POLICY = "helm.sh/hook-delete-policy";

const withAnn = (annotations: Record<string, string | undefined>) =>
  obj("Job", "j", { annotations: annotations as Record<string, string> });

describe("parseCsv", () => {
  it.each([
    { name: "splits on commas and trims spaces", value: " PreSync , PostSync", out: ["PreSync", "PostSync"] },
    { name: "drops empty items", value: "PreSync,,", out: ["PreSync"] },
    { name: "removes duplicates keeping the first", value: "Sync,PreSync,Sync", out: ["Sync", "PreSync"] },
    { name: "is empty for an absent annotation", value: undefined, out: [] },
  ])("$name", ({ value, out }) => {
    expect(parseCsv(value)).toEqual(out);
  });
});

describe("hook types", () => {
  it.each([
    { name: "a plain resource is not a hook", ann: {}, hook: false, skip: false, garbage: false, phases: [] },
    { name: "PreSync is a PreSync hook", ann: { [HOOK]: "PreSync" }, hook: true, skip: false, garbage: false, phases: ["PreSync"] },
    {
      name: "several types give one phase each, in phase order",
      ann: { [HOOK]: "PostSync,PreSync" },
      hook: true,
      skip: false,
      garbage: false,
      phases: ["PreSync", "PostSync"],
    },
    { name: "Skip alone is not a hook but skipped", ann: { [HOOK]: "Skip" }, hook: false, skip: true, garbage: false, phases: [] },
    {
      name: "Skip with PreSync is a PreSync hook",
      ann: { [HOOK]: "Skip,PreSync" },
      hook: true,
      skip: false,
      garbage: false,
      phases: ["PreSync"],
    },
    { name: "an unknown type is a garbage hook", ann: { [HOOK]: "Foo" }, hook: true, skip: false, garbage: true, phases: [] },
    { name: "types are case-sensitive", ann: { [HOOK]: "presync" }, hook: true, skip: false, garbage: true, phases: [] },
    {
      name: "Helm pre-install maps to PreSync",
      ann: { [HELM]: "pre-install" },
      hook: true,
      skip: false,
      garbage: false,
      phases: ["PreSync"],
    },
    {
      name: "Helm pre-install,pre-upgrade is one PreSync",
      ann: { [HELM]: "pre-install,pre-upgrade" },
      hook: true,
      skip: false,
      garbage: false,
      phases: ["PreSync"],
    },
    {
      name: "Helm post-upgrade maps to PostSync",
      ann: { [HELM]: "post-upgrade" },
      hook: true,
      skip: false,
      garbage: false,
      phases: ["PostSync"],
    },
    { name: "Helm test is a garbage hook", ann: { [HELM]: "test" }, hook: true, skip: false, garbage: true, phases: [] },
    { name: "Helm crd-install is not a hook", ann: { [HELM]: "crd-install" }, hook: false, skip: false, garbage: false, phases: [] },
    {
      name: "an Argo CD annotation hides the object's Helm annotation",
      ann: { [HOOK]: "PostSync", [HELM]: "pre-install" },
      hook: true,
      skip: false,
      garbage: false,
      phases: ["PostSync"],
    },
    {
      name: "an invalid Argo CD type falls back to the Helm types",
      ann: { [HOOK]: "Foo", [HELM]: "pre-install" },
      hook: true,
      skip: false,
      garbage: false,
      phases: ["PreSync"],
    },
  ])("$name", ({ ann, hook, skip, garbage, phases }) => {
    const o = withAnn(ann);
    expect(isHook(o)).toBe(hook);
    expect(isSkip(o)).toBe(skip);
    expect(isGarbageHook(o)).toBe(garbage);
    expect(hookPhases(o)).toEqual(phases);
  });

  it.each([
    { name: "PreDelete alone takes part only in deletion", ann: { [HOOK]: "PreDelete" }, only: true },
    { name: "Helm post-delete takes part only in deletion", ann: { [HELM]: "post-delete" }, only: true },
    { name: "PreDelete with PreSync also takes part in syncs", ann: { [HOOK]: "PreDelete,PreSync" }, only: false },
    { name: "a PreSync hook is not a deletion hook", ann: { [HOOK]: "PreSync" }, only: false },
  ])("$name", ({ ann, only }) => {
    expect(isDeletionOnlyHook(withAnn(ann))).toBe(only);
  });

  it("maps the Helm delete hooks to PreDelete and PostDelete", () => {
    expect(hookTypes(withAnn({ [HELM]: "pre-delete,post-delete" }))).toEqual(["PreDelete", "PostDelete"]);
  });
});

describe("deletePolicies", () => {
  it.each([
    { name: "defaults to BeforeHookCreation", ann: {}, out: ["BeforeHookCreation"] },
    { name: "reads the Argo CD policies", ann: { [POLICY]: "HookSucceeded,HookFailed" }, out: ["HookSucceeded", "HookFailed"] },
    {
      name: "maps Helm's spellings",
      ann: { [HELM_POLICY]: "hook-succeeded,before-hook-creation" },
      out: ["HookSucceeded", "BeforeHookCreation"],
    },
    {
      name: "merges Argo CD and Helm without duplicates",
      ann: { [POLICY]: "HookFailed", [HELM_POLICY]: "hook-failed,hook-succeeded" },
      out: ["HookFailed", "HookSucceeded"],
    },
    { name: "ignores unknown values and then defaults", ann: { [POLICY]: "Never" }, out: ["BeforeHookCreation"] },
  ])("$name", ({ ann, out }) => {
    expect(deletePolicies(withAnn(ann))).toEqual(out);
  });
});

describe("hookName", () => {
  const startedAtMs = 1_700_000_000_000;
  it.each([
    { name: "keeps an explicit name", o: obj("Job", "named"), revision: "abcdef123", out: "named" },
    {
      name: "builds generateName + rev7-phase-seconds, lower-cased",
      o: obj("Job", "", { generateName: "app-slack-notification-" }),
      revision: "ABCDEF1234567",
      out: "app-slack-notification-abcdef1-postsync-1700000000",
    },
    {
      name: "keeps a revision shorter than 8 characters whole",
      o: obj("Job", "", { generateName: "h-" }),
      revision: "v1.2",
      out: "h-v1.2-postsync-1700000000",
    },
    { name: "returns undefined with neither name nor generateName", o: obj("Job", ""), revision: "abc", out: undefined },
  ])("$name", ({ o, revision, out }) => {
    expect(hookName(o, { revision, phase: "PostSync", startedAtMs })).toBe(out);
  });
});
