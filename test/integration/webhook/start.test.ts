import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { SystemClock } from "../../../src/clock/index.js";
import { startControllerWebhook } from "../../../src/webhook/start.js";
import { capturedLogger } from "../../support/captured-logger.js";
import { FakeKubeClient } from "../../support/fake-kube-client.js";

describe("startControllerWebhook", () => {
  const base = {
    parallelism: 1,
    dryRun: false,
    client: new FakeKubeClient(),
    namespace: "argocd",
    scope: "argocd",
    allowed: () => true,
    clock: new SystemClock(),
  };

  it("starts no server when --webhook-addr is empty", async () => {
    const { lines, logger } = capturedLogger();
    expect(await startControllerWebhook({ ...base, addr: "", logger })).toBeUndefined();
    expect(lines.map((l) => l["msg"])).toContain("webhook server off (--webhook-addr is empty)");
  });

  it("logs and carries on when the address is taken", async () => {
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, "127.0.0.1", r));
    const port = (taken.address() as { port: number }).port;
    const { lines, logger } = capturedLogger();
    try {
      expect(await startControllerWebhook({ ...base, addr: `127.0.0.1:${String(port)}`, logger })).toBeUndefined();
      expect(lines.find((l) => l["msg"] === "failed to start webhook server")).toMatchObject({
        level: "error",
        addr: `127.0.0.1:${String(port)}`,
      });
    } finally {
      await new Promise((r) => taken.close(r));
    }
  });
});
