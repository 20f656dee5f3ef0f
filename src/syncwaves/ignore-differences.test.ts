import { describe, expect, it } from "vitest";
import { obj } from "../../test/unit/syncwaves/builders.js";
import type { ResourceIgnoreDifferences } from "../api/index.js";
import { compare } from "./compare.js";
import { buildTasks, prepareTarget } from "./build.js";
import { respectIgnored, rulesFor, withoutIgnored } from "./ignore-differences.js";

const spec = (replicas: number, image = "nginx:1") => ({ replicas, template: { spec: { containers: [{ name: "c", image }] } } });
const deploy = (replicas: number, image = "nginx:1") => obj("Deployment", "web", { namespace: "ns", spec: spec(replicas, image) });
const replicasRule: ResourceIgnoreDifferences = { group: "apps", kind: "Deployment", jsonPointers: ["/spec/replicas"] };

describe("ignoreDifferences", () => {
  it.each([
    { name: "group and kind", rule: { group: "apps", kind: "Deployment" }, ok: true },
    { name: "any group and kind", rule: { group: "*", kind: "*" }, ok: true },
    { name: "another kind", rule: { group: "apps", kind: "StatefulSet" }, ok: false },
    { name: "the core group by default", rule: { kind: "Deployment" }, ok: false },
    { name: "its name", rule: { group: "apps", kind: "Deployment", name: "web" }, ok: true },
    { name: "another name", rule: { group: "apps", kind: "Deployment", name: "api" }, ok: false },
    { name: "another namespace", rule: { group: "apps", kind: "Deployment", namespace: "other" }, ok: false },
  ])("a rule naming $name applies: $ok", ({ rule, ok }) => {
    expect(rulesFor([rule], deploy(1))).toHaveLength(ok ? 1 : 0);
  });

  it("leaves ignored fields out, by pointer and by jq path", () => {
    expect(withoutIgnored(deploy(3), [replicasRule]).spec).toEqual({
      template: { spec: { containers: [{ name: "c", image: "nginx:1" }] } },
    });
    const jq: ResourceIgnoreDifferences = {
      group: "apps",
      kind: "Deployment",
      jqPathExpressions: [".spec.template.spec.containers[].image"],
    };
    expect(withoutIgnored(deploy(3), [jq]).spec).toEqual({ replicas: 3, template: { spec: { containers: [{ name: "c" }] } } });
  });

  it("makes a difference in an ignored field Synced, and only there", () => {
    const desired = prepareTarget(deploy(1), { appName: "app", destinationNamespace: "ns" });
    const live = { ...structuredClone(desired), spec: spec(5) };
    expect(compare([desired], [live]).sync).toBe("OutOfSync");
    expect(compare([desired], [live], [], { ignoreDifferences: [replicasRule] }).sync).toBe("Synced");
    const changed = { ...structuredClone(desired), spec: spec(5, "nginx:2") };
    expect(compare([desired], [changed], [], { ignoreDifferences: [replicasRule] }).sync).toBe("OutOfSync");
  });

  it("with RespectIgnoreDifferences=true writes the live value of an ignored field, or leaves it out", () => {
    expect(respectIgnored(deploy(1, "nginx:2"), deploy(5), [replicasRule]).spec).toEqual(deploy(5, "nginx:2").spec);
    const noReplicas = { ...deploy(1), spec: { template: spec(1).template } };
    expect(respectIgnored(deploy(1), noReplicas, [replicasRule]).spec).toEqual(noReplicas.spec);
    expect(respectIgnored(deploy(1), undefined, [replicasRule])).toEqual(deploy(1));
  });

  it("builds sync tasks that keep the live value only when the sync asks to respect ignored differences", () => {
    const live = prepareTarget(deploy(5), { appName: "app", destinationNamespace: "ns" });
    const input = {
      targets: [deploy(1)],
      live: [live],
      appName: "app",
      destinationNamespace: "ns",
      revision: "r",
      startedAtMs: 0,
      skipHooks: false,
      ignoreDifferences: [replicasRule],
    };
    const replicas = (options: string[]) =>
      (buildTasks({ ...input, appOptions: options })[0]?.target?.spec as { replicas?: number }).replicas;
    expect(replicas([])).toBe(1);
    expect(replicas(["RespectIgnoreDifferences=true"])).toBe(5);
  });
});
