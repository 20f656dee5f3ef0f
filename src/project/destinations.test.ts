import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AppProject, ProjectDestination } from "../api/appproject.js";
import { isDestinationPermitted } from "./destinations.js";

const IN = "https://kubernetes.default.svc";

/** A project named "proj" with these destinations. */
function project(destinations: ProjectDestination[], permitOnlyProjectScopedClusters?: boolean): AppProject {
  return {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "AppProject",
    metadata: { name: "proj" },
    spec: { destinations, ...(permitOnlyProjectScopedClusters === undefined ? {} : { permitOnlyProjectScopedClusters }) },
  };
}

interface Row {
  name: string;
  dests: ProjectDestination[];
  server?: string;
  cluster?: string;
  namespace: string;
  permitted: boolean;
}

const allowRows: Row[] = [
  // dests: the project's destinations
  // server/cluster: the resolved cluster's server and name
  // namespace: the target
  // permitted: expected
  {
    name: "a matching server and namespace are permitted",
    dests: [{ server: IN, namespace: "default" }],
    server: IN,
    namespace: "default",
    permitted: true,
  },
  {
    name: "another namespace is refused",
    dests: [{ server: IN, namespace: "default" }],
    server: IN,
    namespace: "kube-system",
    permitted: false,
  },
  {
    name: "another server is refused",
    dests: [{ server: "https://my-cluster", namespace: "default" }],
    server: IN,
    namespace: "default",
    permitted: false,
  },
  {
    name: "a namespace star permits any namespace",
    dests: [{ server: IN, namespace: "*" }],
    server: IN,
    namespace: "kube-system",
    permitted: true,
  },
  {
    name: "a server glob permits a server it matches",
    dests: [{ server: "https://*.default.svc", namespace: "default" }],
    server: IN,
    namespace: "default",
    permitted: true,
  },
  {
    name: "a server glob refuses a server it does not match",
    dests: [{ server: "https://team1-*", namespace: "default" }],
    server: "https://test2-dev-cluster",
    namespace: "default",
    permitted: false,
  },
  {
    name: "a namespace prefix glob permits a namespace with the prefix",
    dests: [{ server: IN, namespace: "test-*" }],
    server: IN,
    namespace: "test-foo",
    permitted: true,
  },
  {
    name: "a namespace prefix glob refuses the bare prefix",
    dests: [{ server: IN, namespace: "test-*" }],
    server: IN,
    namespace: "test",
    permitted: false,
  },
  { name: "stars for both permit anything", dests: [{ server: "*", namespace: "*" }], server: IN, namespace: "test", permitted: true },
  {
    name: "a cluster name permits a destination by name",
    dests: [{ server: "", namespace: "*", name: "test" }],
    cluster: "test",
    namespace: "test",
    permitted: true,
  },
  {
    name: "another cluster name is refused",
    dests: [{ server: "", namespace: "*", name: "test2" }],
    cluster: "test",
    namespace: "test",
    permitted: false,
  },
  {
    name: "a negated namespace on another server does not refuse this one",
    dests: [
      { name: "host-cluster", server: IN, namespace: "!{kube-system,argocd}" },
      { name: "destination-cluster-01", server: "https://eks.example.com", namespace: "*" },
    ],
    server: "https://eks.example.com",
    namespace: "kube-system",
    permitted: true,
  },
];

const denyRows: Row[] = [
  {
    name: "a denied server is refused",
    dests: [{ server: `!${IN}`, namespace: "default" }],
    server: IN,
    namespace: "default",
    permitted: false,
  },
  {
    name: "a denied namespace leaves the others",
    dests: [{ server: IN, namespace: "!default" }],
    server: IN,
    namespace: "kube-system",
    permitted: true,
  },
  {
    name: "a denial of another server permits this one",
    dests: [{ server: "!https://my-cluster", namespace: "default" }],
    server: IN,
    namespace: "default",
    permitted: true,
  },
  {
    name: "a denied server is refused in every namespace",
    dests: [{ server: `!${IN}`, namespace: "*" }],
    server: IN,
    namespace: "kube-system",
    permitted: false,
  },
  {
    name: "a denied server glob refuses what it matches",
    dests: [{ server: "!https://*.default.svc", namespace: "default" }],
    server: IN,
    namespace: "default",
    permitted: false,
  },
  {
    name: "a denied server glob permits what it does not match",
    dests: [{ server: "!https://team1-*", namespace: "default" }],
    server: "https://test2-dev-cluster",
    namespace: "default",
    permitted: true,
  },
  {
    name: "a denied namespace glob refuses what it matches",
    dests: [{ server: IN, namespace: "!test-*" }],
    server: IN,
    namespace: "test-foo",
    permitted: false,
  },
  {
    name: "a denied namespace glob permits what it does not match",
    dests: [{ server: IN, namespace: "!test-*" }],
    server: IN,
    namespace: "test",
    permitted: true,
  },
  {
    name: "a denied name is refused",
    dests: [{ server: "", namespace: "*", name: "!test" }],
    cluster: "test",
    namespace: "test",
    permitted: false,
  },
  {
    name: "a denial of another name permits this one",
    dests: [{ server: "", namespace: "*", name: "!test2" }],
    cluster: "test",
    namespace: "test",
    permitted: true,
  },
  {
    name: "a later namespace denial wins over an earlier allow",
    dests: [
      { server: "*", namespace: "kube-system" },
      { server: "*", namespace: "!kube-system" },
    ],
    server: IN,
    namespace: "kube-system",
    permitted: false,
  },
  {
    name: "a namespace denial wins over a star",
    dests: [
      { server: "*", namespace: "*" },
      { server: "*", namespace: "!kube-system" },
    ],
    server: IN,
    namespace: "kube-system",
    permitted: false,
  },
  {
    name: "a server denial wins over an allow of the same server",
    dests: [
      { server: IN, namespace: "*" },
      { server: `!${IN}`, namespace: "*" },
    ],
    server: IN,
    namespace: "kube-system",
    permitted: false,
  },
  {
    name: "a server denial in one namespace wins there",
    dests: [
      { server: "*", namespace: "*" },
      { server: `!${IN}`, namespace: "kube-system" },
    ],
    server: IN,
    namespace: "kube-system",
    permitted: false,
  },
  {
    name: "a server denial in one namespace leaves the others",
    dests: [
      { server: "*", namespace: "*" },
      { server: `!${IN}`, namespace: "kube-system" },
      { server: "*", namespace: "!kube-system" },
    ],
    server: IN,
    namespace: "default",
    permitted: true,
  },
  {
    name: "a namespace denial refuses it on every server",
    dests: [
      { server: "*", namespace: "*" },
      { server: `!${IN}`, namespace: "kube-system" },
      { server: "*", namespace: "!kube-system" },
    ],
    server: "https://test-dev-cluster",
    namespace: "kube-system",
    permitted: false,
  },
  {
    name: "a name denial wins over an allow of the same name",
    dests: [
      { server: "", namespace: "*", name: "test" },
      { server: "", namespace: "*", name: "!test" },
    ],
    cluster: "test",
    namespace: "test",
    permitted: false,
  },
  {
    name: "a server denial in another namespace leaves this one",
    dests: [
      { server: "*", namespace: "test" },
      { server: "!https://test-server", namespace: "other" },
    ],
    server: "https://test-server",
    namespace: "test",
    permitted: true,
  },
  {
    name: "a namespace denial on another server leaves this one",
    dests: [
      { server: "*", namespace: "*" },
      { server: "https://test-server", namespace: "!other" },
    ],
    server: "https://other-test-server",
    namespace: "other",
    permitted: true,
  },
  {
    name: "a name denial in another namespace does not apply",
    dests: [
      { name: "*", namespace: "*" },
      { name: "!bad", namespace: "other" },
    ],
    cluster: "bad",
    namespace: "test",
    permitted: true,
  },
  {
    name: "a name denial in the namespace applies",
    dests: [
      { name: "*", namespace: "*" },
      { name: "!bad", namespace: "test" },
    ],
    cluster: "bad",
    namespace: "test",
    permitted: false,
  },
  {
    name: "a denied name vetoes an entry whose server matches",
    dests: [{ name: "!bad-cluster", server: "https://api.example.com", namespace: "*" }],
    server: "https://api.example.com",
    cluster: "bad-cluster",
    namespace: "default",
    permitted: false,
  },
  {
    name: "a denied server vetoes an entry whose name matches",
    dests: [{ name: "good-cluster", server: "!https://api.example.com", namespace: "*" }],
    server: "https://api.example.com",
    cluster: "good-cluster",
    namespace: "default",
    permitted: false,
  },
  {
    name: "a denial of another name does not block an allowed server",
    dests: [{ name: "!other-cluster", server: "https://api.example.com", namespace: "*" }],
    server: "https://api.example.com",
    cluster: "good-cluster",
    namespace: "default",
    permitted: true,
  },
  {
    name: "a name-only denial blocks a cluster that also has a server",
    dests: [{ name: "!bad-cluster", namespace: "*" }],
    server: "https://api.example.com",
    cluster: "bad-cluster",
    namespace: "default",
    permitted: false,
  },
];

describe("isDestinationPermitted (a project's destinations)", () => {
  it.each([...allowRows, ...denyRows])("$name", ({ dests, server, cluster, namespace, permitted }) => {
    const resolved = { cluster: { server: server ?? "", name: cluster ?? "" }, namespace };
    expect(isDestinationPermitted(project(dests), resolved, [])).toBe(permitted);
  });

  it("refuses a destination whose cluster did not resolve", () => {
    expect(isDestinationPermitted(project([{ server: "*", namespace: "*" }]), { cluster: undefined, namespace: "x" }, [])).toBe(false);
  });

  it("lets a denial of the server win over any allow in the same namespace", () => {
    const allow = fc.record({ server: fc.constantFrom("*", IN, "https://*"), namespace: fc.constantFrom("*", "ns") });
    fc.assert(
      fc.property(fc.array(allow, { maxLength: 4 }), fc.nat(4), (allows, at) => {
        const dests: ProjectDestination[] = [...allows];
        dests.splice(Math.min(at, dests.length), 0, { server: `!${IN}`, namespace: "*" });
        expect(isDestinationPermitted(project(dests), { cluster: { server: IN, name: "in-cluster" }, namespace: "ns" }, [])).toBe(false);
      }),
    );
  });
});
