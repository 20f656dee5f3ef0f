import { describe, expect, it } from "vitest";
import { FakeClock } from "../clock/index.js";
import { Leases, type Lease } from "../leader/index.js";
import { silentLogger } from "../log/logger.js";
import { FakeKubeClient } from "../../test/support/fake-kube-client.js";
import { leaseLeadership } from "./process-parts.js";
import { SYNC_ENGINE_LEASE_NAME } from "./sync-engine.js";

/** Lets the election's promise chains settle. */
async function settle(): Promise<void> {
  for (let i = 0; i < 50; i++) await Promise.resolve();
}

describe("leaseLeadership", () => {
  it("leads on the command's Lease, says so before the loops start, and releases it on a clean stop", async () => {
    const client = new FakeKubeClient();
    const clock = new FakeClock(0);
    const events: string[] = [];
    const leadership = leaseLeadership(
      { client, namespace: "argocd", clock, logger: silentLogger() },
      { name: SYNC_ENGINE_LEASE_NAME, leading: (leader) => events.push(`leading ${String(leader)}`) },
      "engine-1",
    );
    const stop = new AbortController();
    let leading: AbortSignal | undefined;
    const ended = leadership.run(stop.signal, (signal) => {
      leading = signal;
      events.push("loops");
    });
    await settle();
    expect(events).toEqual(["leading true", "loops"]);
    const held: Lease | undefined = client.peek(Leases, { namespace: "argocd", name: SYNC_ENGINE_LEASE_NAME });
    expect(held?.spec?.holderIdentity).toBe("engine-1");
    stop.abort();
    expect(await ended).toBe("stopped");
    expect(leading?.aborted).toBe(true);
    expect(events).toEqual(["leading true", "loops", "leading false"]);
    const released: Lease | undefined = client.peek(Leases, { namespace: "argocd", name: SYNC_ENGINE_LEASE_NAME });
    expect(released?.spec?.holderIdentity ?? "").toBe("");
  });
});
