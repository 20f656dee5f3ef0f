/**
 * Test support for the SCM generators: Secrets and ConfigMaps of the ApplicationSet namespace, a
 * services instance with a FakeClock, and a generator context around it.
 */
import { encodeSecretData, type Secret } from "../../../src/api/index.js";
import { FakeClock } from "../../../src/clock/index.js";
import type { GeneratorContext, GeneratorPorts } from "../../../src/generators/index.js";
import type { NamespacedObjects } from "../../../src/scm/credentials.js";
import { ScmServices, type ScmServicesOptions, type ScmSettings } from "../../../src/scm/services.js";
import { context } from "../generators/builders.js";

/** A Secret in namespace `argocd` (the test ApplicationSet's), labelled scm-creds unless told otherwise. */
export function scmSecret(
  name: string,
  data: Record<string, string>,
  labels: Record<string, string> = { "argocd.argoproj.io/secret-type": "scm-creds" },
): Secret {
  return { apiVersion: "v1", kind: "Secret", metadata: { name, namespace: "argocd", labels }, data: encodeSecretData(data) };
}

/** Secrets and ConfigMaps by namespace. */
export function objectsOf(secrets: readonly Secret[], configMaps: Record<string, Record<string, string>> = {}): NamespacedObjects {
  return {
    getSecret: (ns, name) => Promise.resolve(secrets.find((s) => s.metadata.name === name && (s.metadata.namespace ?? "argocd") === ns)),
    getConfigMapData: (ns, name) => Promise.resolve(ns === "argocd" ? configMaps[name] : undefined),
  };
}

/** Services, their clock and a generator context using that clock. */
export interface Harness {
  readonly clock: FakeClock;
  readonly services: ScmServices;
  readonly ctx: GeneratorContext;
}

/** A harness over the given Secrets and settings. */
export function harness(
  o: {
    secrets?: Secret[];
    configMaps?: Record<string, Record<string, string>>;
    settings?: Partial<ScmSettings>;
    ports?: GeneratorPorts;
    extra?: Partial<ScmServicesOptions>;
  } = {},
): Harness {
  const clock = new FakeClock();
  const services = new ScmServices({ settings: o.settings ?? {}, objects: objectsOf(o.secrets ?? [], o.configMaps), ...o.extra });
  return { clock, services, ctx: { ...context(o.ports ?? {}), clock } };
}
