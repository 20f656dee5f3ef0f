import { describe, expect, it } from "vitest";
import type { ApplicationSet } from "../api/index.js";
import { appSet } from "../../test/support/controller-builders.js";
import { addFinalizerPatch, relock, removeFinalizerPatch, removeRefreshPatch, touchesAnnotations } from "./appset-patches.js";

const FINALIZER = "resources-finalizer.argocd.argoproj.io";
const REFRESH = "argocd.argoproj.io/application-set-refresh";

function set(metadata: Partial<ApplicationSet["metadata"]>): ApplicationSet {
  return appSet("guestbook", { metadata: { resourceVersion: "42", ...metadata } });
}

describe("the ApplicationSet's metadata patches, as Argo CD's MergeFrom with the optimistic lock computes them", () => {
  it.each([
    // appSet: the ApplicationSet as read; patch: the builder; body: the exact merge patch (undefined: no write)
    {
      name: "adding the finalizer sends the whole new list and the resourceVersion",
      appSet: set({ finalizers: ["other/x"] }),
      patch: addFinalizerPatch,
      body: { metadata: { finalizers: ["other/x", FINALIZER], resourceVersion: "42" } },
    },
    {
      name: "adding the first finalizer",
      appSet: set({}),
      patch: addFinalizerPatch,
      body: { metadata: { finalizers: [FINALIZER], resourceVersion: "42" } },
    },
    {
      name: "removing the finalizer keeps the others",
      appSet: set({ finalizers: ["a/b", FINALIZER, "c/d"] }),
      patch: removeFinalizerPatch,
      body: { metadata: { finalizers: ["a/b", "c/d"], resourceVersion: "42" } },
    },
    {
      name: "removing the last finalizer sends null",
      appSet: set({ finalizers: [FINALIZER] }),
      patch: removeFinalizerPatch,
      body: { metadata: { finalizers: null, resourceVersion: "42" } },
    },
    { name: "no finalizer to remove, no write", appSet: set({ finalizers: ["a/b"] }), patch: removeFinalizerPatch, body: undefined },
    {
      name: "removing the refresh annotation among others nulls that key only",
      appSet: set({ annotations: { [REFRESH]: "true", team: "a" } }),
      patch: removeRefreshPatch,
      body: { metadata: { annotations: { [REFRESH]: null }, resourceVersion: "42" } },
    },
    {
      name: "removing the only annotation nulls the annotations",
      appSet: set({ annotations: { [REFRESH]: "true" } }),
      patch: removeRefreshPatch,
      body: { metadata: { annotations: null, resourceVersion: "42" } },
    },
    { name: "no refresh annotation, no write", appSet: set({ annotations: { team: "a" } }), patch: removeRefreshPatch, body: undefined },
  ])("$name", ({ appSet: a, patch, body }) => {
    expect(patch(a)).toEqual(body);
  });

  it("locks a planned patch to the version the ApplicationSet has when it is sent", () => {
    const planned = removeRefreshPatch(set({ annotations: { [REFRESH]: "true", team: "a" } }))!;
    expect(relock(planned, set({ resourceVersion: "44" }))).toEqual({
      metadata: { annotations: { [REFRESH]: null }, resourceVersion: "44" },
    });
  });

  it("leaves a patch without a lock as it is", () => {
    const body = { metadata: { annotations: { [REFRESH]: "true" } } };
    expect(relock(body, set({}))).toBe(body);
  });

  it.each([
    // body: a metadata patch; annotations: whether it writes annotations
    { name: "the refresh removal", body: { metadata: { annotations: null, resourceVersion: "1" } }, annotations: true },
    { name: "a finalizer patch", body: { metadata: { finalizers: [FINALIZER], resourceVersion: "1" } }, annotations: false },
  ])("tells $name by whether it writes annotations", ({ body, annotations }) => {
    expect(touchesAnnotations(body)).toBe(annotations);
  });
});
