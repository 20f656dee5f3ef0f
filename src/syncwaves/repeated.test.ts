import { describe, expect, it } from "vitest";
import { obj } from "../../test/unit/syncwaves/builders.js";
import { dropRepeated } from "./repeated.js";

describe("dropRepeated", () => {
  it("keeps the last definition of a repeated object, at its first place, and warns once per object", () => {
    const first = obj("ConfigMap", "a", { namespace: "ns", spec: { v: 1 } });
    const second = obj("ConfigMap", "a", { namespace: "ns", spec: { v: 2 } });
    const other = obj("ConfigMap", "b", { namespace: "ns" });
    const d = dropRepeated([first, other, second, obj("ConfigMap", "a", { namespace: "ns", spec: { v: 3 } })]);
    expect(d.objects.map((o) => [o.metadata?.name, o.spec])).toEqual([
      ["a", { v: 3 }],
      ["b", undefined],
    ]);
    expect(d.warnings).toEqual(["Resource /ConfigMap/ns/a appeared 3 times among application resources."]);
  });

  it.each([
    { name: "different kinds", objs: [obj("ConfigMap", "a"), obj("Secret", "a")] },
    { name: "different namespaces", objs: [obj("ConfigMap", "a", { namespace: "x" }), obj("ConfigMap", "a", { namespace: "y" })] },
    { name: "generateName objects", objs: [obj("Job", "", { generateName: "j-" }), obj("Job", "", { generateName: "j-" })] },
  ])("does not treat $name as repeats", ({ objs }) => {
    const d = dropRepeated(objs);
    expect(d.objects).toHaveLength(2);
    expect(d.warnings).toEqual([]);
  });

  it("names the group of a grouped kind", () => {
    const job = obj("Job", "j", { namespace: "ns" });
    expect(dropRepeated([job, job]).warnings).toEqual(["Resource batch/Job/ns/j appeared 2 times among application resources."]);
  });
});
