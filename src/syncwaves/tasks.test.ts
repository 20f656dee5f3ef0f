import { describe, expect, it } from "vitest";
import { obj } from "../../test/unit/syncwaves/builders.js";
import { applied, imagesOf, observe } from "./tasks.js";
import type { SyncTask } from "./types.js";

const running = (live: SyncTask["live"], message = "configmap/a created"): SyncTask => ({
  phase: "Sync",
  target: obj("ConfigMap", "a", { namespace: "ns" }),
  ...(live ? { live } : {}),
  hook: false,
  state: applied(message, false),
});

describe("observe: a running task against its live object", () => {
  it.each([
    [
      "a ConfigMap (no health) keeps the message it was applied with",
      obj("ConfigMap", "a", { namespace: "ns" }),
      "Succeeded",
      "configmap/a created",
    ],
    [
      "a Degraded object takes its health message",
      obj("Deployment", "a", {
        namespace: "ns",
        spec: { replicas: 1, progressDeadlineSeconds: 1 },
        status: { conditions: [{ type: "Progressing", status: "False", reason: "ProgressDeadlineExceeded", message: "too slow" }] },
      }),
      "Failed",
      undefined,
    ],
  ])("%s", (_name, live, phase, message) => {
    const next = observe(running(live));
    expect(next.state.hookPhase).toBe(phase);
    if (message !== undefined) expect(next.state.message).toBe(message);
    else expect(next.state.message).not.toBe("configmap/a created");
  });

  it("fails a task whose object is gone", () => {
    expect(observe(running(undefined)).state.message).toBe("Resource /ConfigMap/a is missing, it might have been deleted");
  });
});

describe("imagesOf", () => {
  it.each([
    [
      "a Pod",
      { kind: "Pod", spec: { containers: [{ image: "a:1" }, { image: "b:2" }], initContainers: [{ image: "i" }] } },
      ["a:1", "b:2"],
    ],
    ["a Deployment", { kind: "Deployment", spec: { template: { spec: { containers: [{ name: "x", image: "nginx" }] } } } }, ["nginx"]],
    [
      "a CronJob",
      { kind: "CronJob", spec: { jobTemplate: { spec: { template: { spec: { containers: [{ image: "busybox" }] } } } } } },
      ["busybox"],
    ],
    ["a ConfigMap", { kind: "ConfigMap", data: { containers: "x" } }, []],
    ["a container without an image", { kind: "Pod", spec: { containers: [{ name: "x" }] } }, []],
  ])("%s", (_n, o, images) => {
    expect(imagesOf(o)).toEqual(images);
  });
});
