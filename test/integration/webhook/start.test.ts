import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { SystemClock } from "../../../src/clock/index.js";
import { createLogger } from "../../../src/log/logger.js";
import { startControllerWebhook } from "../../../src/webhook/start.js";
import { FakeKubeClient } from "../../support/fake-kube-client.js";

describe("startControllerWebhook", () => {
  function logged(): { lines: Array<Record<string, unknown>>; logger: ReturnType<typeof createLogger> } {
    const lines: Array<Record<string, unknown>> = [];
    return {
      lines,
      logger: createLogger({
        level: "info",
        format: "json",
        destination: { write: (s: string) => void lines.push(JSON.parse(s) as Record<string, unknown>) },
      }),
    };
  }
  const base = {
    parallelism: 1,
    dryRun: false,
    client: new FakeKubeClient(),
    namespace: "argocd",
    scope: "argocd",
    allowed: () => true,
    clock: new SystemClock(),
  };

  it("logs and carries on when the address is taken", async () => {
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, "127.0.0.1", r));
    const port = (taken.address() as { port: number }).port;
    const { lines, logger } = logged();
    try {
      expect(await startControllerWebhook({ ...base, addr: `127.0.0.1:${String(port)}`, logger })).toBeUndefined();
      expect(lines.find((l) => l["msg"] === "failed to start webhook server")).toMatchObject({
        level: 50,
        addr: `127.0.0.1:${String(port)}`,
      });
    } finally {
      await new Promise((r) => taken.close(r));
    }
  });
});
