// Builders for RollingSync tests: live Applications with a status, desired Applications, and
// RollingSync ApplicationSets, each with overrides.
import type { Application, ApplicationSet, ApplicationSetApplicationStatus, RollingSyncStep } from "../../../src/api/index.js";
import { rfc3339 } from "../../../src/clock/index.js";
import type { ObservedApp } from "../../../src/progressivesync/index.js";

/** 2026-01-01T00:00:00Z: the epoch of every test clock. */
export const T0 = Date.parse("2026-01-01T00:00:00Z");
/** T0 plus `s` seconds, in ms. */
export const at = (s: number): number => T0 + s * 1000;
/** T0 plus `s` seconds, as an RFC 3339 string. */
export const ts = (s: number): string => rfc3339(at(s));

export const SOURCE = { repoURL: "https://git.example/repo.git", path: "guestbook", targetRevision: "HEAD" };
export const DEST = { server: "https://kubernetes.default.svc", namespace: "guestbook" };

/** A spec as the template renders it. */
export function spec(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { project: "default", source: SOURCE, destination: DEST, ...overrides };
}

/** A desired Application. */
export function desired(name: string, labels: Record<string, string> = {}, s: Record<string, unknown> = spec()) {
  return { apiVersion: "argoproj.io/v1alpha1", kind: "Application", metadata: { name, namespace: "argocd", labels }, spec: s };
}

/** Options of a live Application. */
export interface LiveOptions {
  labels?: Record<string, string>;
  spec?: Record<string, unknown>;
  sync?: string;
  health?: string;
  revisions?: string[];
  /** Seconds after T0; null = never reconciled. */
  reconciledAt?: number | null;
  /** Whether comparedTo describes the spec (default true). */
  compared?: boolean;
  operation?: { phase: string; startedAt: number };
  conditions?: string[];
  annotations?: Record<string, string>;
  deletedAt?: number;
  uid?: string;
  liveOperation?: boolean;
}

/** A live Application with status; by default OutOfSync, Healthy, at revision r1, reconciled at T0. */
export function live(name: string, o: LiveOptions = {}): Application {
  const s = o.spec ?? spec();
  const revisions = o.revisions ?? ["r1"];
  return {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "Application",
    metadata: {
      name,
      namespace: "argocd",
      uid: o.uid ?? `uid-${name}`,
      labels: o.labels ?? {},
      ...(o.annotations ? { annotations: o.annotations } : {}),
      ...(o.deletedAt !== undefined ? { deletionTimestamp: ts(o.deletedAt) } : {}),
    },
    spec: s as Application["spec"],
    ...(o.liveOperation ? { operation: { sync: {} } } : {}),
    status: {
      sync: {
        status: o.sync ?? "OutOfSync",
        ...(revisions.length === 1 ? { revision: revisions[0] } : { revisions }),
        ...(o.compared === false ? {} : { comparedTo: { source: s["source"] as never, destination: s["destination"] as never } }),
      },
      health: { status: o.health ?? "Healthy" },
      ...(o.reconciledAt === null ? {} : { reconciledAt: ts(o.reconciledAt ?? 0) }),
      ...(o.operation ? { operationState: { operation: {}, phase: o.operation.phase, startedAt: ts(o.operation.startedAt) } } : {}),
      ...(o.conditions ? { conditions: o.conditions.map((type) => ({ type, message: "boom" })) } : {}),
    },
  };
}

/** An observed Application for the state machine; by default reconciled at T0, OutOfSync, Healthy, revision r1. */
export function observed(o: Partial<ObservedApp> = {}): ObservedApp {
  return {
    name: "app",
    syncStatus: "OutOfSync",
    healthStatus: "Healthy",
    revisions: ["r1"],
    reconciledAt: at(0),
    operation: undefined,
    hasErrorCondition: false,
    reconciled: true,
    specChanged: false,
    refreshRequested: false,
    terminating: false,
    ...o,
  };
}

/** An applicationStatus entry. */
export function entry(
  application: string,
  status: string,
  o: Partial<ApplicationSetApplicationStatus> = {},
): ApplicationSetApplicationStatus {
  return { application, status, message: "m", step: "1", targetRevisions: ["r1"], lastTransitionTime: ts(0), ...o };
}

/** A step selecting `env In values`. */
export function envStep(values: string[], maxUpdate?: number | string): RollingSyncStep {
  return { matchExpressions: [{ key: "env", operator: "In", values }], ...(maxUpdate !== undefined ? { maxUpdate } : {}) };
}

/** A RollingSync ApplicationSet. */
export function rollingAppSet(
  steps: RollingSyncStep[],
  o: { status?: ApplicationSetApplicationStatus[]; deletionOrder?: string; finalizers?: string[] } = {},
): ApplicationSet {
  return {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "ApplicationSet",
    metadata: { name: "guestbook", namespace: "argocd", ...(o.finalizers ? { finalizers: o.finalizers } : {}) },
    spec: {
      generators: [],
      template: { metadata: {}, spec: { project: "default", destination: {} } },
      strategy: { type: "RollingSync", rollingSync: { steps }, ...(o.deletionOrder ? { deletionOrder: o.deletionOrder } : {}) },
    },
    ...(o.status ? { status: { applicationStatus: o.status } } : {}),
  };
}
