/**
 * Small accessors over plain Kubernetes objects: group, kind, identity, annotations, nested fields.
 * Pure; every function accepts any JSON-shaped object and never throws.
 */
import type { KubeObject } from "../kube/index.js";
import type { ResourceKey } from "./types.js";

/** The API group of an object's apiVersion ("" for the core group). */
export function groupOf(obj: KubeObject): string {
  const apiVersion = obj.apiVersion ?? "";
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? "" : apiVersion.slice(0, slash);
}

/** The version part of an object's apiVersion. */
export function versionOf(obj: KubeObject): string {
  const apiVersion = obj.apiVersion ?? "";
  return apiVersion.slice(apiVersion.indexOf("/") + 1);
}

/** An object's identity. */
export function resourceKeyOf(obj: KubeObject): ResourceKey {
  return {
    group: groupOf(obj),
    kind: obj.kind ?? "",
    namespace: obj.metadata?.namespace ?? "",
    name: obj.metadata?.name ?? "",
  };
}

/** `group/kind/namespace/name`: a map key for an identity. */
export function keyString(key: ResourceKey): string {
  return `${key.group}/${key.kind}/${key.namespace}/${key.name}`;
}

/** The value of one annotation, if set. */
export function annotation(obj: KubeObject | undefined, name: string): string | undefined {
  return obj?.metadata?.annotations?.[name];
}

/** Reads a nested field; undefined when any step is missing or not an object. */
export function field(obj: unknown, ...path: (string | number)[]): unknown {
  let cur: unknown = obj;
  for (const step of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string | number, unknown>)[step];
  }
  return cur;
}

/** A nested number, or undefined. */
export function num(obj: unknown, ...path: (string | number)[]): number | undefined {
  const v = field(obj, ...path);
  return typeof v === "number" ? v : undefined;
}

/** A nested string, or undefined. */
export function str(obj: unknown, ...path: (string | number)[]): string | undefined {
  const v = field(obj, ...path);
  return typeof v === "string" ? v : undefined;
}

/** A nested array (of unknown items), or an empty array. */
export function arr(obj: unknown, ...path: (string | number)[]): unknown[] {
  const v = field(obj, ...path);
  return Array.isArray(v) ? (v as unknown[]) : [];
}

/** Parses a Go `strconv.Atoi` integer: optional sign and decimal digits only. */
export function atoi(value: string | undefined): number | undefined {
  if (value === undefined || !/^[+-]?\d+$/.test(value)) return undefined;
  const n = Number.parseInt(value, 10);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** True for a CustomResourceDefinition. */
export const isCrd = (obj: KubeObject): boolean => obj.kind === "CustomResourceDefinition" && groupOf(obj) === "apiextensions.k8s.io";
