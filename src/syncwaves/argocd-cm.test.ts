import { describe, expect, it } from "vitest";
import type { KubeObject } from "../kube/index.js";
import { resources } from "../kube/index.js";
import type { Logger } from "../log/logger.js";
import { argoCdConfigMapSpec, CustomizationsCache } from "./argocd-cm.js";

const cm = (resourceVersion: string, data: Record<string, unknown>): KubeObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "argocd-cm", namespace: "argocd", resourceVersion },
  data,
});

/** A cache over a settable ConfigMap, with the warnings it logs. */
function setup(): { cache: CustomizationsCache; set: (o: KubeObject | undefined) => void; warnings: unknown[]; reads: string[] } {
  let current: KubeObject | undefined;
  const warnings: unknown[] = [];
  const reads: string[] = [];
  const log = { warn: (fields: unknown) => warnings.push(fields) } as unknown as Logger;
  const cache = new CustomizationsCache({
    get: (ns, name) => {
      reads.push(`${ns}/${name}`);
      return current;
    },
    namespace: "argocd",
    log,
  });
  return { cache, set: (o) => (current = o), warnings, reads };
}

describe("following argocd-cm", () => {
  it("watches only argocd-cm of Argo CD's namespace", () => {
    const spec = argoCdConfigMapSpec("argocd");
    expect(spec.resource).toBe(resources.ConfigMaps);
    expect(spec.namespace).toBe("argocd");
    expect(spec.fieldSelector).toBe("metadata.name=argocd-cm");
  });

  it("has no overrides while the ConfigMap does not exist, and reads it once it does", () => {
    const s = setup();
    expect(s.cache.current().overrides.size).toBe(0);
    s.set(cm("1", { "resource.customizations.health.batch_Job": "return {}" }));
    expect([...s.cache.current().overrides.keys()]).toEqual(["batch/Job"]);
    expect(s.reads).toEqual(["argocd/argocd-cm", "argocd/argocd-cm"]);
  });

  it("parses a version once and again when it changes", () => {
    const s = setup();
    s.set(cm("1", { "resource.customizations.health.batch_Job": "a" }));
    const first = s.cache.current();
    expect(s.cache.current()).toBe(first);
    s.set(cm("2", { "resource.customizations.health.batch_Job": "b" }));
    expect(s.cache.current().overrides.get("batch/Job")?.healthLua).toBe("b");
    s.set(undefined);
    expect(s.cache.current().overrides.size).toBe(0);
  });

  it("logs each key it skips once per version and keeps the rest", () => {
    const s = setup();
    s.set(cm("1", { "resource.exclusions": "- [", "resource.customizations.health.batch_Job": "a", other: 5 }));
    expect(s.cache.current().overrides.get("batch/Job")?.healthLua).toBe("a");
    s.cache.current();
    expect(s.warnings).toEqual([expect.objectContaining({ key: "resource.exclusions", reason: "InvalidCustomizationValue" })]);
  });
});
