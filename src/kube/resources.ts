/**
 * Resource descriptors of the kinds the project touches by name, and the pure URL-path builder the
 * adapter uses for any descriptor.
 */
import { KubeApiError, KubeReason } from "./errors.js";
import type { ResourceDescriptor } from "./ports.js";

/** core/v1 ConfigMap. */
export const ConfigMaps: ResourceDescriptor = { group: "", version: "v1", plural: "configmaps", kind: "ConfigMap", namespaced: true };
/** core/v1 Secret. */
export const Secrets: ResourceDescriptor = { group: "", version: "v1", plural: "secrets", kind: "Secret", namespaced: true };
/** core/v1 Namespace. */
export const Namespaces: ResourceDescriptor = { group: "", version: "v1", plural: "namespaces", kind: "Namespace", namespaced: false };
/** core/v1 Event. */
export const Events: ResourceDescriptor = { group: "", version: "v1", plural: "events", kind: "Event", namespaced: true };
/** argoproj.io/v1alpha1 Application. */
export const Applications: ResourceDescriptor = {
  group: "argoproj.io",
  version: "v1alpha1",
  plural: "applications",
  kind: "Application",
  namespaced: true,
};
/** argoproj.io/v1alpha1 ApplicationSet (has a status subresource). */
export const ApplicationSets: ResourceDescriptor = {
  group: "argoproj.io",
  version: "v1alpha1",
  plural: "applicationsets",
  kind: "ApplicationSet",
  namespaced: true,
};
/** argoproj.io/v1alpha1 AppProject. */
export const AppProjects: ResourceDescriptor = {
  group: "argoproj.io",
  version: "v1alpha1",
  plural: "appprojects",
  kind: "AppProject",
  namespaced: true,
};

/** progressivesync.appset.dev/v1alpha1 RolloutPolicy (rollout safety, docs/adr/0009-rollout-policy-crd.md). */
export const RolloutPolicies: ResourceDescriptor = {
  group: "progressivesync.appset.dev",
  version: "v1alpha1",
  plural: "rolloutpolicies",
  kind: "RolloutPolicy",
  namespaced: true,
};
/** progressivesync.appset.dev/v1alpha1 RolloutRun (has a status subresource). */
export const RolloutRuns: ResourceDescriptor = {
  group: "progressivesync.appset.dev",
  version: "v1alpha1",
  plural: "rolloutruns",
  kind: "RolloutRun",
  namespaced: true,
};

/** apiextensions.k8s.io/v1 CustomResourceDefinition. */
export const CustomResourceDefinitions: ResourceDescriptor = {
  group: "apiextensions.k8s.io",
  version: "v1",
  plural: "customresourcedefinitions",
  kind: "CustomResourceDefinition",
  namespaced: false,
};

/** What a request path addresses. */
export interface PathTarget {
  namespace?: string;
  name?: string;
  subresource?: "status";
}

/**
 * The URL path of a collection or an object, e.g. `/apis/argoproj.io/v1alpha1/namespaces/ns/applicationsets/a/status`.
 * A namespaced resource addressed by name needs a namespace; without a name and namespace the path
 * is the all-namespaces collection.
 */
export function resourcePath(resource: ResourceDescriptor, target: PathTarget = {}): string {
  const parts = resource.group === "" ? ["api", resource.version] : ["apis", resource.group, resource.version];
  if (resource.namespaced && target.namespace) {
    parts.push("namespaces", target.namespace);
  } else if (resource.namespaced && target.name !== undefined) {
    throw new KubeApiError({
      status: 0,
      reason: KubeReason.Invalid,
      message: `${resource.kind} ${target.name}: a namespace is required for a namespaced resource`,
    });
  }
  parts.push(resource.plural);
  if (target.name !== undefined) parts.push(target.name);
  if (target.subresource !== undefined) parts.push(target.subresource);
  return "/" + parts.map(encodeURIComponent).join("/");
}
