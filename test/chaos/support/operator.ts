/**
 * The operator's part of the guestbook rollout: qa (`maxUpdate: 0`) is synced by hand once dev is
 * Healthy at the revision, as `argocd app sync` does, and synced again when that sync fails (a
 * connection cut in the middle of it fails it, as in Argo CD).
 */
import type { KubeApiClient } from "../../../src/kube/index.js";
import { appName, envSettled, manualSync, settledAt, type Sizes } from "../../e2e/support/guestbook-rollout.js";
import type { RolloutRecorder } from "../../e2e/support/rollout-recorder.js";

/** The Application the operator syncs. */
export const QA = appName("engineering-qa-1");

/** Syncs qa at `revision` once dev is settled, until it is settled too; resolves with the attempts. */
export async function operateQa(rec: RolloutRecorder, client: KubeApiClient, ns: string, sizes: Sizes, revision: string): Promise<number> {
  await envSettled(rec, "env-dev", sizes["env-dev"], revision, 600_000);
  for (let attempt = 1; ; attempt++) {
    const mark = rec.apps.at(-1)?.seq ?? 0;
    await manualSync(client, ns, QA, revision);
    const outcome = await rec.waitFor(
      `qa's sync at ${revision.slice(0, 7)} (attempt ${String(attempt)})`,
      () => {
        if (settledAt(rec.current.get(QA), revision)) return "settled";
        const failed = rec.apps.some(
          (e) => e.seq > mark && e.name === QA && e.operation === undefined && (e.opPhase === "Failed" || e.opPhase === "Error"),
        );
        return failed ? "failed" : undefined;
      },
      300_000,
    );
    if (outcome === "settled") return attempt;
  }
}
