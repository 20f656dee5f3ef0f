import { describe, expect, it } from "vitest";
import { isInvalid } from "./errors.js";
import { ApplicationSets, ConfigMaps, Namespaces, resourcePath, type PathTarget } from "./resources.js";
import type { ResourceDescriptor } from "./ports.js";

describe("resourcePath", () => {
  it.each<{ name: string; resource: ResourceDescriptor; target: PathTarget; expected: string }>([
    // name: what is addressed; resource, target: the input; expected: the URL path
    { name: "a core collection across namespaces", resource: ConfigMaps, target: {}, expected: "/api/v1/configmaps" },
    {
      name: "a core collection in a namespace",
      resource: ConfigMaps,
      target: { namespace: "ns" },
      expected: "/api/v1/namespaces/ns/configmaps",
    },
    { name: "a core object", resource: ConfigMaps, target: { namespace: "ns", name: "a" }, expected: "/api/v1/namespaces/ns/configmaps/a" },
    {
      name: "a cluster-scoped object, ignoring a namespace",
      resource: Namespaces,
      target: { namespace: "x", name: "team" },
      expected: "/api/v1/namespaces/team",
    },
    {
      name: "a custom resource's status subresource",
      resource: ApplicationSets,
      target: { namespace: "argocd", name: "s", subresource: "status" },
      expected: "/apis/argoproj.io/v1alpha1/namespaces/argocd/applicationsets/s/status",
    },
    {
      name: "a name that needs escaping",
      resource: ConfigMaps,
      target: { namespace: "ns", name: "a b" },
      expected: "/api/v1/namespaces/ns/configmaps/a%20b",
    },
  ])("builds the path of $name", ({ resource, target, expected }) => {
    expect(resourcePath(resource, target)).toBe(expected);
  });

  it("refuses to address a namespaced object without a namespace", () => {
    let err: unknown;
    try {
      resourcePath(ConfigMaps, { name: "a" });
    } catch (e) {
      err = e;
    }
    expect(isInvalid(err)).toBe(true);
  });
});
