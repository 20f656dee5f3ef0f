import { describe, expect, it } from "vitest";
import type { KubeObject } from "../kube/index.js";
import { compare } from "../syncwaves/compare.js";
import { formatDiffs, projectLive, resourceDiffs } from "./app-diff.js";

const toYaml = (v: unknown): string => `${JSON.stringify(v, null, 1)}\n`;
const cm = (name: string, data: Record<string, string>, extra: Partial<KubeObject> = {}): KubeObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace: "ns", ...extra.metadata },
  data,
});

describe("projectLive", () => {
  it.each([
    { name: "a match shows the desired value", desired: { a: 1 }, live: { a: 1, b: 2 }, want: { a: 1 } },
    { name: "fields only live are left out", desired: { a: 1 }, live: { a: 2, b: 2 }, want: { a: 2 } },
    { name: "a field missing live is missing", desired: { a: 1, c: 1 }, live: { a: 1 }, want: { a: 1 } },
    { name: "arrays of a length are projected element-wise", desired: [{ a: 1 }], live: [{ a: 2, b: 1 }], want: [{ a: 2 }] },
    { name: "arrays of other lengths are shown whole", desired: [1], live: [1, 2], want: [1, 2] },
    {
      name: "equal quantities match",
      desired: { resources: { limits: { cpu: "0.5" } } },
      live: { resources: { limits: { cpu: "500m" } } },
      want: { resources: { limits: { cpu: "0.5" } } },
    },
    { name: "a desired empty value matches a missing one", desired: { a: 1, list: [] }, live: { a: 2 }, want: { a: 2 } },
  ])("$name", ({ desired, live, want }) => {
    expect(projectLive(desired, live)).toEqual(want);
  });
});

describe("resourceDiffs", () => {
  it("diffs the OutOfSync resources only, a live object no manifest claims against nothing", () => {
    const targets = [cm("same", { a: "1" }), cm("changed", { a: "1" })];
    const live = [cm("same", { a: "1", b: "x" }), cm("changed", { a: "2" }), cm("orphan", { z: "1" })];
    const diffs = resourceDiffs({ targets, live, comparison: compare(targets, live), ignoreDifferences: [] }, toYaml);
    expect(diffs.map((d) => d.resource)).toEqual(["/ConfigMap ns/changed", "/ConfigMap ns/orphan"]);
    expect(diffs[0]!.hunks).toContain('-  "a": "2"\n+  "a": "1"\n');
    expect(diffs[1]!.hunks.split("\n").filter((l) => l.startsWith("+"))).toEqual([]);
    expect(formatDiffs(diffs.slice(0, 1))).toMatch(/^\n===== \/ConfigMap ns\/changed ======\n--- live\n\+\+\+ desired\n@@ /);
  });

  it("leaves out Secrets, as argocd app diff does", () => {
    const targets = [{ ...cm("s", { a: "MQ==" }), kind: "Secret" }];
    const live = [{ ...cm("s", { a: "Mg==" }), kind: "Secret" }];
    expect(resourceDiffs({ targets, live, comparison: compare(targets, live), ignoreDifferences: [] }, toYaml)).toEqual([]);
  });

  it("leaves out the fields ignoreDifferences names", () => {
    const targets = [cm("c", { a: "1", b: "1" })];
    const live = [cm("c", { a: "1", b: "2" })];
    const rules = [{ kind: "ConfigMap", jsonPointers: ["/data/b"] }];
    expect(
      resourceDiffs(
        { targets, live, comparison: compare(targets, live, [], { ignoreDifferences: rules }), ignoreDifferences: rules },
        toYaml,
      ),
    ).toEqual([]);
  });
});
