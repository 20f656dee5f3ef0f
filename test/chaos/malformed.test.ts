/**
 * The malformed-input corpus against one controller process, with a healthy neighbour: while the
 * corpus's ApplicationSets (APPSET_CHAOS_MALFORMED, default 300, seeded mutations) are created ten
 * a second, the neighbour's list is edited five times a second. Measured: every ApplicationSet the
 * apiserver accepts gets a condition within 5 s; the neighbour's edits reach its Applications
 * within 2 s at the 99th percentile and none of them is deleted; the controller's resident memory
 * stays under 512 MiB; the process never dies.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { errorMessage } from "../../src/errors.js";
import { KubeApiError, resources, type KubeObject } from "../../src/kube/index.js";
import { controllerNamespace, processArgs, spawnController } from "../e2e/support/controller.js";
import { follow } from "./support/follow.js";
import { malformedCorpus } from "./support/malformed.js";
import { chaosPlane, sleep } from "./support/plane.js";
import { Random } from "./support/random.js";

const plane = chaosPlane();
const COUNT = Number(process.env["APPSET_CHAOS_MALFORMED"] ?? "300");
const CONDITION_WITHIN_MS = 5_000;
const NEIGHBOUR_P99_MS = 2_000;
const RSS_LIMIT_MIB = 512;
const NEIGHBOURS = ["n1", "n2", "n3"];

/** Resident memory of `pid` in MiB (VmRSS), or 0 once it is gone. */
function rssMiB(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${String(pid)}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

const neighbourSpec = (edit: number) => ({
  generators: [{ list: { elements: NEIGHBOURS.map((name) => ({ name, edit: String(edit) })) } }],
});

function neighbour(ns: string): KubeObject {
  return {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "ApplicationSet",
    metadata: { name: "neighbour", namespace: ns },
    spec: {
      ...neighbourSpec(0),
      template: {
        metadata: { name: "neighbour-{{name}}", labels: { edit: "{{edit}}" } },
        spec: {
          project: "default",
          source: { repoURL: "https://example.com/apps.git", targetRevision: "HEAD", path: "{{name}}" },
          destination: { server: "https://kubernetes.default.svc", namespace: "{{name}}" },
        },
      },
    },
  };
}

describe("malformed ApplicationSets beside a healthy neighbour", () => {
  it(`conditions for all of ${String(COUNT)} cases, the neighbour served, memory bounded, the process alive`, async () => {
    const rnd = new Random();
    const client = plane.client();
    const ns = await controllerNamespace(client, "chaos-bad");
    const ctl = spawnController(processArgs(ns, "--enable-progressive-syncs"), "controller", plane.cp().kubeconfigPath);
    plane.procs.push(ctl);
    await ctl.waitForLog("caches synced, starting workers");

    const created = new Map<string, number>();
    const firstCondition = new Map<string, number>();
    const sets = await follow(client, resources.ApplicationSets, ns, (_type, o, at) => {
      const name = o.metadata?.name ?? "";
      const conditions = (o["status"] as { conditions?: unknown[] } | undefined)?.conditions ?? [];
      if (conditions.length > 0 && !firstCondition.has(name)) firstCondition.set(name, at);
    });
    const sentAt = new Map<number, number>();
    const latencies = new Map<number, number>();
    const editSeen = new Map<string, number>();
    const neighbourDeleted: string[] = [];
    const apps = await follow(client, resources.Applications, ns, (type, o, at) => {
      const name = o.metadata?.name ?? "";
      if (!name.startsWith("neighbour-")) return;
      if (type === "DELETED" || o.metadata?.deletionTimestamp !== undefined) neighbourDeleted.push(name);
      editSeen.set(name, Number(o.metadata?.labels?.["edit"] ?? "-1"));
      const applied = Math.min(...NEIGHBOURS.map((n) => editSeen.get(`neighbour-${n}`) ?? -1));
      for (const [n, t] of sentAt) if (n <= applied && !latencies.has(n)) latencies.set(n, at - t);
    });
    let maxRss = 0;
    const sampler = setInterval(() => (maxRss = Math.max(maxRss, rssMiB(ctl.child.pid ?? 0))), 250);
    await client.create(resources.ApplicationSets, neighbour(ns));
    let editing = true;
    let edit = 0;
    const editor = (async () => {
      while (editing) {
        edit++;
        sentAt.set(edit, performance.now());
        await client.patch(
          resources.ApplicationSets,
          { namespace: ns, name: "neighbour" },
          { type: "merge", body: { spec: neighbourSpec(edit) } },
        );
        await sleep(200);
      }
    })();
    try {
      const refused = new Map<string, number>();
      const corpus = malformedCorpus(COUNT, ns, rnd);
      for (const c of corpus) {
        try {
          await client.create(resources.ApplicationSets, c.object);
          created.set(c.id, performance.now());
        } catch (err) {
          const reason = err instanceof KubeApiError ? `${String(err.status)} ${err.statusReason ?? err.reason}` : errorMessage(err);
          refused.set(reason, (refused.get(reason) ?? 0) + 1);
        }
        await sleep(100);
      }
      await sleep(CONDITION_WITHIN_MS);
      editing = false;
      await editor;
      await sleep(NEIGHBOUR_P99_MS);

      const late = corpus.flatMap((c) => {
        const t0 = created.get(c.id);
        if (t0 === undefined) return [];
        const t1 = firstCondition.get(c.id);
        return t1 !== undefined && t1 - t0 <= CONDITION_WITHIN_MS
          ? []
          : [
              `${c.id} (${c.mutations.join(" + ")}): ${t1 === undefined ? "no condition" : `a condition after ${String(Math.round(t1 - t0))} ms`}`,
            ];
      });
      const delays = [...created].flatMap(([id, t0]) => (firstCondition.has(id) ? [firstCondition.get(id)! - t0] : []));
      const served = [...sentAt.keys()].map((n) => latencies.get(n) ?? Infinity);
      const p99 = percentile(served, 99);
      console.log(
        `chaos malformed: seed ${String(rnd.seed)}, ${String(COUNT)} cases, ${String(created.size)} accepted, ` +
          `${String(COUNT - created.size)} refused by the apiserver (${[...refused].map(([r, n]) => `${r} ${String(n)}`).join(", ")}); ` +
          `first condition p50 ${String(Math.round(percentile(delays, 50)))} ms, max ${String(Math.round(Math.max(0, ...delays)))} ms; ` +
          `neighbour edits ${String(served.length)}, p50 ${String(Math.round(percentile(served, 50)))} ms, p99 ${String(Math.round(p99))} ms; ` +
          `resident memory at most ${String(Math.round(maxRss))} MiB`,
      );
      expect(late).toEqual([]);
      expect(neighbourDeleted).toEqual([]);
      expect(p99).toBeLessThan(NEIGHBOUR_P99_MS);
      expect(maxRss).toBeLessThan(RSS_LIMIT_MIB);
      expect(ctl.child.exitCode).toBeNull();
      expect(ctl.child.signalCode).toBeNull();
    } finally {
      editing = false;
      clearInterval(sampler);
      sets.stop();
      apps.stop();
      ctl.child.kill("SIGTERM");
      await ctl.exited;
    }
  }, 900_000);
});
