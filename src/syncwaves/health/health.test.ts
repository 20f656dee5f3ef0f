import { describe, expect, it } from "vitest";
import { obj } from "../../../test/unit/syncwaves/builders.js";
import { aggregateHealth, resourceHealth } from "./index.js";
import type { KubeObject } from "../../kube/index.js";

const deploy = (spec: Record<string, unknown>, status: Record<string, unknown>, generation = 1): KubeObject =>
  obj("Deployment", "d", { generation, spec, status });

describe("resourceHealth per kind", () => {
  it.each([
    // Deployment
    { name: "a paused Deployment is Suspended", o: deploy({ paused: true, replicas: 1 }, {}), status: "Suspended" },
    {
      name: "a Deployment whose generation is not observed is Progressing",
      o: deploy({ replicas: 1 }, { observedGeneration: 1 }, 2),
      status: "Progressing",
    },
    {
      name: "a Deployment past its progress deadline is Degraded",
      o: deploy({ replicas: 1 }, { observedGeneration: 1, conditions: [{ type: "Progressing", reason: "ProgressDeadlineExceeded" }] }),
      status: "Degraded",
    },
    {
      name: "a Deployment with too few updated replicas is Progressing",
      o: deploy({ replicas: 2 }, { observedGeneration: 1, updatedReplicas: 1 }),
      status: "Progressing",
    },
    {
      name: "a Deployment with old replicas terminating is Progressing",
      o: deploy({ replicas: 1 }, { observedGeneration: 1, updatedReplicas: 1, replicas: 2, availableReplicas: 1 }),
      status: "Progressing",
    },
    {
      name: "a Deployment with unavailable replicas is Progressing",
      o: deploy({ replicas: 2 }, { observedGeneration: 1, updatedReplicas: 2, replicas: 2, availableReplicas: 1 }),
      status: "Progressing",
    },
    {
      name: "a rolled-out Deployment is Healthy",
      o: deploy({ replicas: 2 }, { observedGeneration: 1, updatedReplicas: 2, replicas: 2, availableReplicas: 2 }),
      status: "Healthy",
    },
    // StatefulSet
    {
      name: "a StatefulSet never observed is Progressing",
      o: obj("StatefulSet", "s", { generation: 1, spec: { replicas: 1 }, status: {} }),
      status: "Progressing",
    },
    {
      name: "a StatefulSet with unready pods is Progressing",
      o: obj("StatefulSet", "s", { generation: 1, spec: { replicas: 2 }, status: { observedGeneration: 1, readyReplicas: 1 } }),
      status: "Progressing",
    },
    {
      name: "a partitioned StatefulSet still updating is Progressing",
      o: obj("StatefulSet", "s", {
        generation: 1,
        spec: { replicas: 3, updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 1 } } },
        status: { observedGeneration: 1, readyReplicas: 3, updatedReplicas: 1 },
      }),
      status: "Progressing",
    },
    {
      name: "an OnDelete StatefulSet with ready pods is Healthy",
      o: obj("StatefulSet", "s", {
        generation: 1,
        spec: { replicas: 1, updateStrategy: { type: "OnDelete" } },
        status: { observedGeneration: 1, readyReplicas: 1 },
      }),
      status: "Healthy",
    },
    {
      name: "a StatefulSet between revisions is Progressing",
      o: obj("StatefulSet", "s", {
        generation: 1,
        spec: { replicas: 1, updateStrategy: { type: "RollingUpdate" } },
        status: { observedGeneration: 1, readyReplicas: 1, updateRevision: "b", currentRevision: "a" },
      }),
      status: "Progressing",
    },
    {
      name: "a StatefulSet at one revision is Healthy",
      o: obj("StatefulSet", "s", {
        generation: 1,
        spec: { replicas: 1 },
        status: { observedGeneration: 1, readyReplicas: 1, updateRevision: "a", currentRevision: "a" },
      }),
      status: "Healthy",
    },
    // DaemonSet, ReplicaSet
    {
      name: "a DaemonSet with pods not yet updated is Progressing",
      o: obj("DaemonSet", "ds", {
        generation: 1,
        status: { observedGeneration: 1, desiredNumberScheduled: 2, updatedNumberScheduled: 1, numberAvailable: 1 },
      }),
      status: "Progressing",
    },
    {
      name: "a DaemonSet with every pod available is Healthy",
      o: obj("DaemonSet", "ds", {
        generation: 1,
        status: { observedGeneration: 1, desiredNumberScheduled: 2, updatedNumberScheduled: 2, numberAvailable: 2 },
      }),
      status: "Healthy",
    },
    {
      name: "a ReplicaSet with a ReplicaFailure is Degraded",
      o: obj("ReplicaSet", "rs", {
        generation: 1,
        spec: { replicas: 1 },
        status: { observedGeneration: 1, conditions: [{ type: "ReplicaFailure", status: "True", message: "quota" }] },
      }),
      status: "Degraded",
    },
    {
      name: "a ReplicaSet with available replicas is Healthy",
      o: obj("ReplicaSet", "rs", { generation: 1, spec: { replicas: 1 }, status: { observedGeneration: 1, availableReplicas: 1 } }),
      status: "Healthy",
    },
    // Pod
    { name: "a Pending pod is Progressing", o: obj("Pod", "p", { status: { phase: "Pending" } }), status: "Progressing" },
    { name: "a Succeeded pod is Healthy", o: obj("Pod", "p", { status: { phase: "Succeeded" } }), status: "Healthy" },
    { name: "a Failed pod is Degraded", o: obj("Pod", "p", { status: { phase: "Failed" } }), status: "Degraded" },
    {
      name: "a ready Running pod with restart policy Always is Healthy",
      o: obj("Pod", "p", { status: { phase: "Running", conditions: [{ type: "Ready", status: "True" }] } }),
      status: "Healthy",
    },
    {
      name: "a Running pod with restart policy Never is Progressing (a finite pod)",
      o: obj("Pod", "p", {
        spec: { restartPolicy: "Never" },
        status: { phase: "Running", conditions: [{ type: "Ready", status: "True" }] },
      }),
      status: "Progressing",
    },
    {
      name: "a pod in CrashLoopBackOff is Degraded",
      o: obj("Pod", "p", {
        status: {
          phase: "Running",
          containerStatuses: [{ name: "c", state: { waiting: { reason: "CrashLoopBackOff", message: "back-off" } } }],
        },
      }),
      status: "Degraded",
    },
    {
      name: "an unready pod that restarted is Degraded",
      o: obj("Pod", "p", { status: { phase: "Running", containerStatuses: [{ name: "c", lastState: { terminated: { exitCode: 1 } } }] } }),
      status: "Degraded",
    },
    { name: "a pod without phase is Unknown", o: obj("Pod", "p", { status: {} }), status: "Unknown" },
    // Job, CronJob
    { name: "a Job without conditions is Progressing", o: obj("Job", "j", { status: {} }), status: "Progressing" },
    {
      name: "a Complete Job is Healthy",
      o: obj("Job", "j", { status: { conditions: [{ type: "Complete", status: "True" }] } }),
      status: "Healthy",
    },
    {
      name: "a Failed Job is Degraded",
      o: obj("Job", "j", { status: { conditions: [{ type: "Failed", status: "True", message: "deadline" }] } }),
      status: "Degraded",
    },
    {
      name: "a suspended Job is Suspended",
      o: obj("Job", "j", { status: { conditions: [{ type: "Suspended", status: "True" }] } }),
      status: "Suspended",
    },
    {
      name: "a Suspended condition with status False counts as complete, as in Argo CD",
      o: obj("Job", "j", { status: { conditions: [{ type: "Suspended", status: "False" }] } }),
      status: "Healthy",
    },
    { name: "a CronJob with no status is Progressing", o: obj("CronJob", "cj"), status: "Progressing" },
    {
      name: "a CronJob whose last run never succeeded is Degraded",
      o: obj("CronJob", "cj", { status: { lastScheduleTime: "2024-01-02T00:00:00Z", lastSuccessfulTime: "2024-01-01T00:00:00Z" } }),
      status: "Degraded",
    },
    // Service, Ingress, PVC, APIService, HPA, PDB, Workflow
    { name: "a ClusterIP Service is Healthy", o: obj("Service", "s", { spec: { type: "ClusterIP" } }), status: "Healthy" },
    {
      name: "a LoadBalancer without ingress is Progressing",
      o: obj("Service", "s", { spec: { type: "LoadBalancer" }, status: {} }),
      status: "Progressing",
    },
    {
      name: "a LoadBalancer with ingress is Healthy",
      o: obj("Service", "s", { spec: { type: "LoadBalancer" }, status: { loadBalancer: { ingress: [{ ip: "1.2.3.4" }] } } }),
      status: "Healthy",
    },
    { name: "an Ingress without address is Progressing", o: obj("Ingress", "i", { status: {} }), status: "Progressing" },
    { name: "a Bound PVC is Healthy", o: obj("PersistentVolumeClaim", "c", { status: { phase: "Bound" } }), status: "Healthy" },
    { name: "a Lost PVC is Degraded", o: obj("PersistentVolumeClaim", "c", { status: { phase: "Lost" } }), status: "Degraded" },
    {
      name: "an unavailable APIService is Progressing, never Degraded",
      o: obj("APIService", "v1.x", {
        apiVersion: "apiregistration.k8s.io/v1",
        status: { conditions: [{ type: "Available", status: "False", reason: "R", message: "m" }] },
      }),
      status: "Progressing",
    },
    {
      name: "an HPA failing to read metrics is Degraded",
      o: obj("HorizontalPodAutoscaler", "h", {
        apiVersion: "autoscaling/v2",
        status: { conditions: [{ type: "ScalingActive", status: "False", reason: "FailedGetResourceMetric" }] },
      }),
      status: "Degraded",
    },
    {
      name: "an HPA able to scale is Healthy",
      o: obj("HorizontalPodAutoscaler", "h", {
        apiVersion: "autoscaling/v2",
        status: { conditions: [{ type: "AbleToScale", status: "True" }] },
      }),
      status: "Healthy",
    },
    {
      name: "a PDB with a False condition is Degraded",
      o: obj("PodDisruptionBudget", "p", {
        apiVersion: "policy/v1",
        status: { conditions: [{ type: "DisruptionAllowed", status: "False", reason: "SyncFailed" }] },
      }),
      status: "Degraded",
    },
    {
      name: "a running Workflow is Progressing",
      o: obj("Workflow", "w", { apiVersion: "argoproj.io/v1alpha1", status: { phase: "Running" } }),
      status: "Progressing",
    },
    {
      name: "an errored Workflow is Degraded",
      o: obj("Workflow", "w", { apiVersion: "argoproj.io/v1alpha1", status: { phase: "Error" } }),
      status: "Degraded",
    },
  ])("$name", ({ o, status }) => {
    expect(resourceHealth(o)?.status).toBe(status);
  });

  const crd = (conditions: Array<Record<string, string>> | undefined) =>
    obj("CustomResourceDefinition", "widgets.example.com", {
      apiVersion: "apiextensions.k8s.io/v1",
      ...(conditions !== undefined ? { status: { conditions } } : {}),
    });
  it.each([
    { name: "a CRD without conditions", o: crd(undefined), status: "Progressing", message: "Status conditions not found" },
    {
      name: "an established CRD",
      o: crd([
        { type: "NamesAccepted", status: "True" },
        { type: "Established", status: "True" },
      ]),
      status: "Healthy",
      message: "CRD is healthy",
    },
    {
      name: "a CRD whose names were refused",
      o: crd([{ type: "NamesAccepted", status: "False", message: "taken" }]),
      status: "Degraded",
      message: "CRD names have not been accepted: taken",
    },
    {
      name: "a CRD with a non-structural schema",
      o: crd([{ type: "NonStructuralSchema", status: "True", message: "bad" }]),
      status: "Degraded",
      message: "Schema violations found: bad",
    },
    {
      name: "a CRD being installed",
      o: crd([{ type: "Established", status: "False", reason: "Installing" }]),
      status: "Progressing",
      message: "CRD is being installed",
    },
    {
      name: "a CRD with an invalid CA bundle",
      o: crd([{ type: "Established", status: "False", reason: "InvalidCABundle", message: "ca" }]),
      status: "Degraded",
      message: "CRD is not established: ca",
    },
    {
      name: "a CRD not yet established",
      o: crd([{ type: "NamesAccepted", status: "True" }]),
      status: "Progressing",
      message: "CRD is not established",
    },
    {
      name: "a terminating CRD",
      o: crd([{ type: "Terminating", status: "True", message: "going" }]),
      status: "Progressing",
      message: "CRD is terminating: going",
    },
  ])("$name: $status", ({ o, status, message }) => {
    expect(resourceHealth(o)).toEqual({ status, message });
  });

  it.each([
    // generic rules
    {
      name: "an object being deleted without the hook finalizer is Progressing",
      o: obj("ConfigMap", "c", { deletionTimestamp: "2024-01-01T00:00:00Z" }),
      status: "Progressing",
    },
    {
      name: "a completed Job hook being deleted but held by the hook finalizer keeps its own health",
      o: obj("Job", "j", {
        deletionTimestamp: "2024-01-01T00:00:00Z",
        finalizers: ["argocd.argoproj.io/hook-finalizer"],
        status: { conditions: [{ type: "Complete" }] },
      }),
      status: "Healthy",
    },
    {
      name: "a custom resource whose generation is not yet observed is Progressing",
      o: obj("Widget", "w", { apiVersion: "example.com/v1", generation: 3, status: { observedGeneration: 2 } }),
      status: "Progressing",
    },
  ])("$name", ({ o, status }) => {
    expect(resourceHealth(o)?.status).toBe(status);
  });

  it.each([
    { name: "a ConfigMap has no health check", o: obj("ConfigMap", "c") },
    {
      name: "a child Application has no built-in health check",
      o: obj("Application", "a", { apiVersion: "argoproj.io/v1alpha1", status: { health: { status: "Degraded" } } }),
    },
    {
      name: "a custom resource that observed its generation has no health check",
      o: obj("Widget", "w", { apiVersion: "example.com/v1", generation: 2, status: { observedGeneration: 2 } }),
    },
  ])("$name", ({ o }) => {
    expect(resourceHealth(o)).toBeUndefined();
  });

  it("ignores the ignore-restart-policy annotation for hooks", () => {
    const pod = obj("Pod", "p", {
      annotations: { "argocd.argoproj.io/ignore-restart-policy": "true" },
      spec: { restartPolicy: "Never" },
      status: { phase: "Running", containerStatuses: [{ name: "c", state: { waiting: { reason: "ErrImagePull" } } }] },
    });
    expect(resourceHealth(pod)?.status).toBe("Degraded");
    expect(resourceHealth(pod, { isHook: true })?.status).toBe("Progressing");
  });
});

describe("aggregateHealth", () => {
  const key = (name: string) => ({ group: "apps", kind: "Deployment", namespace: "ns", name });
  it.each([
    { name: "is Healthy with no resources", inputs: [], status: "Healthy", message: undefined },
    {
      name: "takes the worst status and names its causes",
      inputs: [
        { key: key("a"), health: { status: "Healthy" as const }, live: true, ignored: false },
        { key: key("b"), health: { status: "Degraded" as const }, live: true, ignored: false },
        { key: key("c"), health: { status: "Progressing" as const }, live: true, ignored: false },
      ],
      status: "Degraded",
      message: "Caused by apps/Deployment:ns/b",
    },
    {
      name: "names a core kind without a group, and a cluster-scoped object without a namespace",
      inputs: [
        {
          key: { group: "", kind: "Service", namespace: "ns", name: "s" },
          health: { status: "Progressing" as const },
          live: true,
          ignored: false,
        },
        {
          key: { group: "", kind: "Namespace", namespace: "", name: "n" },
          health: { status: "Progressing" as const },
          live: true,
          ignored: false,
        },
      ],
      status: "Progressing",
      message: "Caused by Service:ns/s, Namespace:n",
    },
    {
      name: "is Missing when resources exist but none is live",
      inputs: [{ key: key("a"), health: { status: "Missing" as const }, live: false, ignored: false }],
      status: "Missing",
      message: undefined,
    },
    {
      name: "skips an individually Missing resource when others are live",
      inputs: [
        { key: key("a"), health: { status: "Missing" as const }, live: false, ignored: false },
        { key: key("b"), health: { status: "Healthy" as const }, live: true, ignored: false },
      ],
      status: "Healthy",
      message: undefined,
    },
    {
      name: "skips ignored resources",
      inputs: [
        { key: key("a"), health: { status: "Degraded" as const }, live: true, ignored: true },
        { key: key("b"), health: { status: "Healthy" as const }, live: true, ignored: false },
      ],
      status: "Healthy",
      message: undefined,
    },
    {
      name: "names three causes and counts the rest",
      inputs: ["a", "b", "c", "d", "e"].map((n) => ({
        key: key(n),
        health: { status: "Progressing" as const },
        live: true,
        ignored: false,
      })),
      status: "Progressing",
      message: "Caused by apps/Deployment:ns/a, apps/Deployment:ns/b, apps/Deployment:ns/c and 2 more",
    },
    {
      name: "skips an Unknown child Application",
      inputs: [
        { key: key("a"), health: { status: "Unknown" as const }, live: true, ignored: false, childApp: true },
        { key: key("b"), health: { status: "Suspended" as const }, live: true, ignored: false },
      ],
      status: "Suspended",
      message: "Caused by apps/Deployment:ns/b",
    },
  ])("$name", ({ inputs, status, message }) => {
    const out = aggregateHealth(inputs);
    expect(out.status).toBe(status);
    expect(out.message).toBe(message);
  });
});
