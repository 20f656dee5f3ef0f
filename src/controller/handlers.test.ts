import { describe, expect, it } from "vitest";
import type { ApplicationSet } from "../api/index.js";
import type { Informer } from "../kube/index.js";
import { appSet } from "../../test/support/controller-builders.js";
import { rolloutUnderWay, watchAppSets, type HandlerOptions } from "./handlers.js";

const entry = (application: string, status: string) => ({ application, status, message: "", step: "1" });

describe("ApplicationSet adds", () => {
  it.each([
    { name: "no applicationStatus", statuses: [], urgent: false },
    { name: "every Application Healthy", statuses: ["Healthy", "Healthy"], urgent: false },
    { name: "an Application Waiting", statuses: ["Healthy", "Waiting"], urgent: false },
    { name: "an Application Pending", statuses: ["Healthy", "Pending"], urgent: true },
    { name: "an Application Progressing", statuses: ["Progressing"], urgent: true },
  ])("queue an ApplicationSet with $name first: $urgent", ({ statuses, urgent }) => {
    const set = appSet("web", { status: { applicationStatus: statuses.map((s, i) => entry(`a${String(i)}`, s)) } });
    expect(rolloutUnderWay(set)).toBe(urgent);
    let add: ((a: ApplicationSet) => void) | undefined;
    const informer = {
      on: (h: { add: (a: ApplicationSet) => void }) => ((add = h.add), () => undefined),
    } as unknown as Informer<ApplicationSet>;
    const queued: Array<[string, boolean | undefined]> = [];
    const opts = { allowed: () => true, enqueue: (key: string, u?: boolean) => queued.push([key, u]), progressiveSyncs: true };
    watchAppSets(informer, opts as unknown as HandlerOptions);
    add?.(set);
    expect(queued).toEqual([["argocd/web", urgent]]);
  });
});
