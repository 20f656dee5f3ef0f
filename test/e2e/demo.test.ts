/**
 * The demo's scenario end to end on the shared control plane, with plain output: the real
 * `appset controller --enable-progressive-syncs --enable-sync-engine` rolls the guestbook out step
 * by step (qa synced by hand), then deletes it last step first, and the printed lines say so.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, inject, it } from "vitest";
import { resources } from "../../src/kube/index.js";
import { appName, guestbookNamespaces } from "../demo/guestbook.js";
import { plainReporter, Stopwatch } from "../demo/reporter.js";
import { runScenario } from "../demo/scenario.js";
import { sharedClient } from "./support/controller.js";

const suffix = randomBytes(3).toString("hex");
const namespace = `demo-${suffix}`;
const prefix = `guestbook-${suffix}`;
const workDir = mkdtempSync(join(tmpdir(), "appset-demo-test-"));

afterAll(async () => {
  const client = sharedClient();
  for (const ns of [namespace, ...guestbookNamespaces(prefix)])
    await client.delete(resources.Namespaces, { name: ns }).catch(() => undefined);
  await client.transport.close();
  rmSync(workDir, { recursive: true, force: true });
});

/** The index of the first line containing every one of `parts` (-1 when none does). */
const lineOf = (lines: readonly string[], ...parts: string[]): number => lines.findIndex((l) => parts.every((p) => l.includes(p)));

describe("the demo scenario", () => {
  it("rolls the guestbook out dev, qa by hand, then prod, and deletes it prod first, then qa, then dev", async () => {
    const lines: string[] = [];
    const stopwatch = new Stopwatch();
    await runScenario({
      kubeconfigPath: inject("kubeconfigPath"),
      namespace,
      namespacePrefix: prefix,
      workDir,
      reporter: plainReporter((l) => lines.push(l)),
      stopwatch,
      signal: new AbortController().signal,
      phaseTimeoutMs: 150_000,
    });
    const dev = lineOf(lines, "step 1 (env-dev) is Healthy");
    const manual = lineOf(lines, "step 2 (env-qa) has maxUpdate 0");
    const qa = lineOf(lines, "step 2 (env-qa) is Healthy");
    const prod = lineOf(lines, "step 3 (env-prod) is Healthy");
    const completed = lineOf(lines, "Rollout completed");
    expect(
      [dev, manual, qa, prod, completed].every((i, n, all) => i >= 0 && (n === 0 || i > all[n - 1]!)),
      lines.join("\n"),
    ).toBe(true);
    expect(lineOf(lines, "argocd app sync", appName("qa"))).toBeGreaterThan(manual - 1);

    // prod (step 3) is deleted first, then qa, then dev.
    const deletion = lineOf(lines, "Reverse deletion completed; deleted in this order: ");
    expect(deletion).toBeGreaterThan(completed);
    const order = (lines[deletion] ?? "").split("deleted in this order: ")[1]?.split(", ") ?? [];
    expect([order.slice(0, 3).sort(), order.slice(3)]).toEqual([
      ["prod-ap", "prod-eu", "prod-us"].map(appName),
      [appName("qa"), appName("dev")],
    ]);
    expect(stopwatch.report().phases.map((p) => p.name)).toEqual(
      expect.arrayContaining(["controller start", "rollout (total)", "reverse deletion", "controller stop"]),
    );
  }, 420_000);
});
