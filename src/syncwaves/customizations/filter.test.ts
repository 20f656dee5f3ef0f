import { describe, expect, it } from "vitest";
import { isExcluded } from "./filter.js";
import type { FilteredResource } from "./types.js";

const PROD = "https://prod.example.com";
const LOCAL = "https://kubernetes.default.svc";

describe("resource exclusions and inclusions", () => {
  it.each([
    // exclusions, inclusions, the resource asked about, and whether it is excluded
    { name: "nothing is excluded without filters", ex: [], inc: [], group: "apps", kind: "Deployment", cluster: LOCAL, excluded: false },
    { name: "core Events are always excluded", ex: [], inc: [], group: "", kind: "Event", cluster: LOCAL, excluded: true },
    { name: "events.k8s.io is always excluded", ex: [], inc: [], group: "events.k8s.io", kind: "Event", cluster: LOCAL, excluded: true },
    {
      name: "metrics.k8s.io is always excluded",
      ex: [],
      inc: [],
      group: "metrics.k8s.io",
      kind: "PodMetrics",
      cluster: LOCAL,
      excluded: true,
    },
    { name: "Leases are always excluded", ex: [], inc: [], group: "coordination.k8s.io", kind: "Lease", cluster: LOCAL, excluded: true },
    { name: "a core ConfigMap is not excluded by default", ex: [], inc: [], group: "", kind: "ConfigMap", cluster: LOCAL, excluded: false },
    {
      name: "an exclusion by group glob, any kind and cluster",
      ex: [{ apiGroups: ["*.cilium.io", "cilium.io"] }],
      inc: [],
      group: "cilium.io",
      kind: "CiliumIdentity",
      cluster: LOCAL,
      excluded: true,
    },
    {
      name: "an exclusion of one kind leaves the others",
      ex: [{ apiGroups: ["apps"], kinds: ["ReplicaSet"] }],
      inc: [],
      group: "apps",
      kind: "Deployment",
      cluster: LOCAL,
      excluded: false,
    },
    {
      name: "kinds match exactly, not as globs",
      ex: [{ kinds: ["Deploy*"] }],
      inc: [],
      group: "apps",
      kind: "Deployment",
      cluster: LOCAL,
      excluded: false,
    },
    {
      name: "an exclusion of another cluster does not apply",
      ex: [{ kinds: ["*"], clusters: [PROD] }],
      inc: [],
      group: "apps",
      kind: "Deployment",
      cluster: LOCAL,
      excluded: false,
    },
    {
      name: "an exclusion wins over a matching inclusion",
      ex: [{ kinds: ["Deployment"] }],
      inc: [{ kinds: ["Deployment"] }],
      group: "apps",
      kind: "Deployment",
      cluster: LOCAL,
      excluded: true,
    },
    {
      name: "an included kind is kept",
      ex: [],
      inc: [{ apiGroups: ["apps"], kinds: ["Deployment"] }],
      group: "apps",
      kind: "Deployment",
      cluster: LOCAL,
      excluded: false,
    },
    {
      name: "with inclusions for the cluster, what they do not name is excluded",
      ex: [],
      inc: [{ apiGroups: ["apps"], kinds: ["Deployment"] }],
      group: "",
      kind: "ConfigMap",
      cluster: LOCAL,
      excluded: true,
    },
    {
      name: "inclusions for another cluster leave this one alone",
      ex: [],
      inc: [{ kinds: ["Deployment"], clusters: [PROD] }],
      group: "",
      kind: "ConfigMap",
      cluster: LOCAL,
      excluded: false,
    },
    {
      name: "cluster globs match server URLs",
      ex: [{ kinds: ["ConfigMap"], clusters: ["https://*.example.com"] }],
      inc: [],
      group: "",
      kind: "ConfigMap",
      cluster: PROD,
      excluded: true,
    },
  ] as {
    name: string;
    ex: FilteredResource[];
    inc: FilteredResource[];
    group: string;
    kind: string;
    cluster: string;
    excluded: boolean;
  }[])("$name", ({ ex, inc, group, kind, cluster, excluded }) => {
    expect(isExcluded({ exclusions: ex, inclusions: inc }, group, kind, cluster)).toBe(excluded);
  });
});
