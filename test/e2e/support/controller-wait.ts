/**
 * Waits shared by the controller's e2e tests: Argo CD's success conditions verbatim, waiting for a
 * namespace's Applications or an ApplicationSet's conditions to become what a test expects, and for
 * an in-process controller to go quiet.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { KubeClient } from "../../../src/kube/index.js";
import { applications, conditionRows, eventually, readAppSet, type RunningController } from "./controller.js";

const OK = "All applications have been generated successfully";

/** The conditions of a successful pass, as `[type, status, reason, message]` rows. */
export const SUCCESS: readonly (readonly string[])[] = [
  ["ErrorOccurred", "False", "ApplicationSetUpToDate", OK],
  ["ParametersGenerated", "True", "ParametersGenerated", "All parameters have been generated successfully"],
  ["ResourcesUpToDate", "True", "ApplicationSetUpToDate", OK],
];

/** The names of a namespace's Applications, sorted. */
export async function appNames(client: KubeClient, ns: string): Promise<string[]> {
  return [...(await applications(client, ns)).keys()].sort();
}

/** Waits until the namespace holds exactly the Applications `want` (sorted). */
export async function waitForNames(client: KubeClient, ns: string, want: readonly string[], timeoutMs = 30_000): Promise<void> {
  await eventually(
    `Applications ${want.join(",")}`,
    async () => (JSON.stringify(await appNames(client, ns)) === JSON.stringify(want) ? true : undefined),
    timeoutMs,
  );
}

/** Waits until an ApplicationSet's conditions are exactly `want`. */
export async function waitForConditions(
  client: KubeClient,
  ns: string,
  name: string,
  want: readonly (readonly string[])[],
  timeoutMs = 30_000,
): Promise<void> {
  const text = JSON.stringify(want);
  await eventually(
    `conditions of ${name}`,
    async () => (JSON.stringify(conditionRows(await readAppSet(client, ns, name))) === text ? true : undefined),
    timeoutMs,
  );
}

/** Waits until the controller has gone quiet (nothing queued or running) for half a second. */
export async function settle(run: RunningController): Promise<void> {
  for (let quiet = 0; quiet < 5;) {
    await sleep(100);
    quiet = run.controller.idle() ? quiet + 1 : 0;
  }
}
