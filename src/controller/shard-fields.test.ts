import { describe, expect, it } from "vitest";
import { FakeClock } from "../clock/index.js";
import { capturedLogger } from "../../test/support/captured-logger.js";
import { applicationSetFields, WorkerPool } from "../manager/worker.js";
import { WorkQueue } from "../manager/workqueue.js";
import { reconcileKeyFields, shardedKeyFields } from "./shard-fields.js";

describe("shardedKeyFields", () => {
  it("names the ApplicationSet as Argo CD does and the replica by its identity", () => {
    expect(shardedKeyFields("appset-0_1234")("argocd/guestbook")).toEqual({
      applicationset: { Namespace: "argocd", Name: "guestbook" },
      replica: "appset-0_1234",
    });
  });

  it("are Argo CD's own without sharding", () => {
    expect(reconcileKeyFields(undefined)).toBe(applicationSetFields);
    expect(reconcileKeyFields({ identity: "r" })("argocd/a")).toMatchObject({ replica: "r" });
  });

  it("puts the replica on every line a reconcile logs", async () => {
    const { lines, logger } = capturedLogger();
    const clock = new FakeClock();
    const queue = new WorkQueue({ clock });
    const seen: string[] = [];
    const pool = new WorkerPool({
      queue,
      clock,
      logger,
      concurrency: 1,
      keyFields: shardedKeyFields("appset-1_abcd"),
      reconciler: {
        reconcile: (key, ctx) => {
          ctx.logger.info("planned");
          seen.push(key);
          return Promise.reject(new Error("boom"));
        },
      },
    });
    pool.start();
    queue.add("argocd/guestbook");
    await expect.poll(() => seen.length).toBe(1);
    await pool.stop(0);
    const reconcileLines = lines.filter((l) => l.msg === "planned" || l.msg === "Reconciler error");
    expect(reconcileLines).toHaveLength(2);
    for (const line of reconcileLines) expect(line).toMatchObject({ replica: "appset-1_abcd", applicationset: { Name: "guestbook" } });
  });
});
