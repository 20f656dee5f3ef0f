import { describe, expect, it } from "vitest";
import { Discovery, descriptorsFrom, type JsonGetter } from "./discovery.js";
import { errorMessage } from "../errors.js";
import { isNotFound, KubeApiError, KubeReason } from "./errors.js";

/** Answers discovery paths from a table and counts the requests. */
function getter(
  answers: Record<string, Array<{ name: string; kind: string; namespaced: boolean }> | Error>,
): JsonGetter & { paths: string[] } {
  const paths: string[] = [];
  return {
    paths,
    request: ({ path }) => {
      paths.push(path);
      const a = answers[path];
      if (a instanceof Error) return Promise.reject(a);
      if (a === undefined)
        return Promise.reject(new KubeApiError({ status: 404, reason: KubeReason.NotFound, message: "404 page not found" }));
      return Promise.resolve({ resources: a });
    },
  };
}

const core = [
  { name: "configmaps", kind: "ConfigMap", namespaced: true },
  { name: "pods", kind: "Pod", namespaced: true },
  { name: "pods/status", kind: "Pod", namespaced: true },
  { name: "namespaces", kind: "Namespace", namespaced: false },
];

describe("Discovery", () => {
  it("asks the apiserver once per group-version and answers later lookups from its cache", async () => {
    const http = getter({ "/api/v1": core });
    const d = new Discovery(http);
    expect(await d.resourceFor("v1", "ConfigMap")).toEqual({
      group: "",
      version: "v1",
      plural: "configmaps",
      kind: "ConfigMap",
      namespaced: true,
    });
    expect(await d.resourceFor("v1", "Namespace")).toMatchObject({ plural: "namespaces", namespaced: false });
    expect(http.paths).toEqual(["/api/v1"]);
  });

  it("refetches once when a kind is missing from the cached list, then fails with NotFound", async () => {
    const http = getter({ "/apis/argoproj.io/v1alpha1": [] });
    const d = new Discovery(http);
    const err = await d.resourceFor("argoproj.io/v1alpha1", "Application").catch((e: unknown) => e);
    expect(isNotFound(err)).toBe(true);
    expect(errorMessage(err)).toBe('Application.argoproj.io "" not found');
    await d.resourceFor("argoproj.io/v1alpha1", "Application").catch(() => undefined);
    expect(http.paths).toEqual(["/apis/argoproj.io/v1alpha1", "/apis/argoproj.io/v1alpha1"]);
  });

  it("reports a group-version the apiserver does not serve as client-go does", async () => {
    const err = await new Discovery(getter({})).resourceFor("example.com/v1", "Widget").catch((e: unknown) => e);
    expect(isNotFound(err)).toBe(true);
    expect(errorMessage(err)).toBe(
      "failed to discover server resources for group version example.com/v1: the server could not find the requested resource",
    );
  });

  it("does not cache a failed request", async () => {
    const answers: Parameters<typeof getter>[0] = { "/api/v1": new Error("connection refused") };
    const http = getter(answers);
    const d = new Discovery(http);
    await expect(d.resourceFor("v1", "ConfigMap")).rejects.toThrow("connection refused");
    answers["/api/v1"] = core;
    await expect(d.resourceFor("v1", "ConfigMap")).resolves.toMatchObject({ plural: "configmaps" });
  });

  it("forgets everything on invalidate", async () => {
    const http = getter({ "/api/v1": core });
    const d = new Discovery(http);
    await d.resourceFor("v1", "Pod");
    d.invalidate();
    await d.resourceFor("v1", "Pod");
    expect(http.paths).toHaveLength(2);
  });
});

describe("descriptorsFrom", () => {
  it("skips subresources and keeps the first resource of each kind", () => {
    const byKind = descriptorsFrom("", "v1", core);
    expect([...byKind.keys()]).toEqual(["ConfigMap", "Pod", "Namespace"]);
    expect(byKind.get("Pod")?.plural).toBe("pods");
  });
});
