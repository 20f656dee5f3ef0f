import { describe, expect, it } from "vitest";
import type { SyncWindow } from "../api/appproject.js";
import { matchingWindows, type SyncWindowApplication } from "./sync-windows-match.js";

const app: SyncWindowApplication = {
  name: "test-app",
  namespace: "default",
  server: "https://cluster1.example.com",
  clusterName: "cluster1",
};

const window = (lists: Partial<SyncWindow>): SyncWindow => ({ kind: "allow", schedule: "* * * * *", duration: "1h", ...lists });

describe("which windows apply to an application", () => {
  it.each([
    // lists: the window's applications/clusters/namespaces (and andOperator); applies: whether it matches `app`
    { name: "a window naming the application", lists: { applications: ["test-app"] }, applies: true },
    { name: "a window with a glob on application names", lists: { applications: ["test-*"] }, applies: true },
    { name: "a window naming another application", lists: { applications: ["other"] }, applies: false },
    { name: "a window naming the destination cluster by name", lists: { clusters: ["cluster1"] }, applies: true },
    { name: "a window naming the destination server URL", lists: { clusters: ["https://cluster1.example.com"] }, applies: true },
    { name: "a window with a glob on the server URL", lists: { clusters: ["https://*.example.com"] }, applies: true },
    { name: "a window naming the destination namespace", lists: { namespaces: ["default"] }, applies: true },
    { name: "a window naming another namespace", lists: { namespaces: ["kube-system"] }, applies: false },
    { name: "a window with a star namespace", lists: { namespaces: ["*"] }, applies: true },
    { name: "a window that names nothing", lists: {}, applies: false },
    { name: "a window whose lists are empty", lists: { applications: [], clusters: [], namespaces: [] }, applies: false },
    {
      name: "any list matching is enough by default",
      lists: { applications: ["other"], clusters: ["elsewhere"], namespaces: ["default"] },
      applies: true,
    },
    {
      name: "with andOperator every set list must match",
      lists: { applications: ["test-app"], namespaces: ["kube-system"], andOperator: true },
      applies: false,
    },
    {
      name: "with andOperator a failing cluster list excludes",
      lists: { applications: ["test-*"], clusters: ["other"], andOperator: true },
      applies: false,
    },
    {
      name: "with andOperator matching set lists include",
      lists: { applications: ["test-*"], clusters: ["cluster*"], namespaces: ["default"], andOperator: true },
      applies: true,
    },
    { name: "with andOperator unset lists are not required", lists: { clusters: ["cluster1"], andOperator: true }, applies: true },
    { name: "with andOperator a window that names nothing applies to nothing", lists: { andOperator: true }, applies: false },
    { name: "negation is not supported: a leading ! is a literal", lists: { applications: ["!other"] }, applies: false },
  ])("$name", ({ lists, applies }) => {
    const candidate = window(lists);
    expect(matchingWindows([candidate], app)).toEqual(applies ? [candidate] : []);
  });

  it.each([
    // target: the application's destination; applies: whether a window on cluster "*" matches it
    { name: "an application with only a server URL", target: { name: "a", server: "https://x" }, applies: true },
    { name: "an application with only a cluster name", target: { name: "a", clusterName: "in-cluster" }, applies: true },
    { name: "an application with neither, as an empty cluster name or URL is never tried", target: { name: "a" }, applies: false },
  ])("a star cluster list applies to $name: $applies", ({ target, applies }) => {
    expect(matchingWindows([window({ clusters: ["*"] })], target).length).toBe(applies ? 1 : 0);
  });

  it("does not match an empty destination against a cluster glob", () => {
    expect(matchingWindows([window({ clusters: ["?*"] })], { name: "a" })).toEqual([]);
  });

  it("keeps the matching windows in their order and drops the others", () => {
    const first = window({ applications: ["test-app"] });
    const second = window({ namespaces: ["other"] });
    const third = window({ clusters: ["cluster1"] });
    expect(matchingWindows([first, second, third], app)).toEqual([first, third]);
  });

  it("returns no windows when the project has none", () => {
    expect(matchingWindows(undefined, app)).toEqual([]);
  });
});
