import { describe, expect, it } from "vitest";
import { obj } from "../../../test/unit/syncwaves/builders.js";
import { parseArgoCdConfigMap, type ResourceCustomizations } from "../customizations/index.js";
import type { KubeObject } from "../../kube/index.js";
import { pendingDeletionHealth, type CheckedHealth } from "./deletion.js";
import { resourceHealth } from "./index.js";

const DELETED_AT = "2026-01-01T00:00:00Z";
const HOOK_FINALIZER = "argocd.argoproj.io/hook-finalizer";

/** A Pod, being deleted when `finalizers` is given. */
const pod = (finalizers?: string[]): KubeObject =>
  obj("Pod", "p", { namespace: "ns", ...(finalizers !== undefined ? { deletionTimestamp: DELETED_AT, finalizers } : {}) });

/** A case: an object, what is given with it, and the health wanted (undefined: none). */
interface Row<Given> {
  readonly name: string;
  readonly o: KubeObject;
  /** pendingDeletionHealth: what the object's check said; resourceHealth: the argocd-cm customizations. */
  readonly given: Given;
  readonly want: unknown;
}

describe("pendingDeletionHealth", () => {
  it.each<Row<CheckedHealth | undefined>>([
    {
      name: "an object not being deleted keeps its check's health",
      o: pod(),
      given: { status: "Healthy", deletionMessage: "ignored" },
      want: undefined,
    },
    {
      name: "an object being deleted with no finalizer is Pending deletion",
      o: pod([]),
      given: undefined,
      want: { status: "Progressing", message: "Pending deletion" },
    },
    {
      name: "the finalizers that hold it are named in their order, comma-separated",
      o: pod(["example.com/b", "example.com/a"]),
      given: { status: "Healthy" },
      want: { status: "Progressing", message: "Pending deletion; blocked by finalizers: example.com/b, example.com/a" },
    },
    {
      name: "a check's deletionMessage replaces the default, keeping the check's status and dropping its message",
      o: pod(["example.com/a"]),
      given: { status: "Degraded", message: "all good", deletionMessage: "waiting for the bucket to empty" },
      want: { status: "Degraded", message: "waiting for the bucket to empty" },
    },
    {
      name: "an empty deletionMessage is no deletionMessage",
      o: pod(["example.com/a"]),
      given: { status: "Healthy", deletionMessage: "" },
      want: { status: "Progressing", message: "Pending deletion; blocked by finalizers: example.com/a" },
    },
    {
      name: "an object held by the hook finalizer keeps its check's health",
      o: pod(["example.com/a", HOOK_FINALIZER]),
      given: { status: "Healthy", deletionMessage: "ignored" },
      want: undefined,
    },
  ])("$name", ({ o, given, want }) => {
    expect(pendingDeletionHealth(o, given)).toEqual(want);
  });
});

const custom = (data: Record<string, string>): ResourceCustomizations => parseArgoCdConfigMap(data).customizations;
const widget = (meta: { finalizers?: string[]; deleting?: boolean }): KubeObject =>
  obj("Widget", "w", {
    apiVersion: "shop.example.com/v1",
    ...(meta.deleting === true ? { deletionTimestamp: DELETED_AT } : {}),
    ...(meta.finalizers !== undefined ? { finalizers: meta.finalizers } : {}),
  });
const script = (lua: string): ResourceCustomizations => custom({ "resource.customizations.health.shop.example.com_Widget": lua });
const WITH_DELETION_MESSAGE = script(
  'local hs = {status = "Healthy", message = "ready"}\n' +
    'if obj.metadata.deletionTimestamp ~= nil then hs.status = "Suspended"; hs.deletionMessage = "cleanup: " .. obj.metadata.finalizers[1] end\n' +
    "return hs",
);

describe("resourceHealth of an object being deleted", () => {
  it.each<Row<ResourceCustomizations | undefined>>([
    {
      name: "a built-in check's Healthy gives way to Pending deletion",
      o: obj("Ingress", "i", {
        apiVersion: "networking.k8s.io/v1",
        deletionTimestamp: DELETED_AT,
        status: { loadBalancer: { ingress: [{ hostname: "x.example.com" }] } },
      }),
      given: undefined,
      want: { status: "Progressing", message: "Pending deletion" },
    },
    {
      name: "an object no check covers names the finalizers that hold it",
      o: obj("ConfigMap", "c", { deletionTimestamp: DELETED_AT, finalizers: ["example.com/x", "example.com/y"] }),
      given: undefined,
      want: { status: "Progressing", message: "Pending deletion; blocked by finalizers: example.com/x, example.com/y" },
    },
    {
      name: "an object no check covers, not being deleted, has no health",
      o: obj("ConfigMap", "c", { finalizers: ["example.com/x"] }),
      given: undefined,
      want: undefined,
    },
    {
      name: "a lagging generation gives way to Pending deletion",
      o: obj("Widget", "w", {
        apiVersion: "shop.example.com/v1",
        generation: 2,
        status: { observedGeneration: 1 },
        deletionTimestamp: DELETED_AT,
      }),
      given: undefined,
      want: { status: "Progressing", message: "Pending deletion" },
    },
    {
      name: "a Lua check's deletionMessage is shown with the status it returned",
      o: widget({ deleting: true, finalizers: ["shop.example.com/cleanup"] }),
      given: WITH_DELETION_MESSAGE,
      want: { status: "Suspended", message: "cleanup: shop.example.com/cleanup" },
    },
    {
      name: "a Lua check's deletionMessage is never shown while the object is not being deleted",
      o: widget({}),
      given: script('return {status = "Healthy", message = "ready", deletionMessage = "never shown"}'),
      want: { status: "Healthy", message: "ready" },
    },
    {
      name: "a Lua check without deletionMessage gives way to Pending deletion",
      o: widget({ deleting: true, finalizers: ["shop.example.com/cleanup"] }),
      given: script('return {status = "Degraded", message = "broken"}'),
      want: { status: "Progressing", message: "Pending deletion; blocked by finalizers: shop.example.com/cleanup" },
    },
    {
      name: "a Lua check with an invalid status gives way to Pending deletion, its deletionMessage dropped",
      o: widget({ deleting: true }),
      given: script('return {status = "Fine", deletionMessage = "dropped"}'),
      want: { status: "Progressing", message: "Pending deletion" },
    },
    {
      name: "a failing Lua check stays Unknown with its failure",
      o: widget({ deleting: true }),
      given: script("return obj.status.missing.field"),
      want: { status: "Unknown", message: "<string>:1: attempt to index a nil value (field 'status')" },
    },
    {
      name: "a Lua check's result stands for a hook held by the hook finalizer",
      o: widget({ deleting: true, finalizers: [HOOK_FINALIZER] }),
      given: WITH_DELETION_MESSAGE,
      want: { status: "Suspended", message: "ready" },
    },
  ])("$name", ({ o, given, want }) => {
    expect(resourceHealth(o, { custom: given })).toEqual(want);
  });
});
