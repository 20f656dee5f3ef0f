import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { controllerCommand } from "../../../src/cli/controller.js";
import type { ControllerIO } from "../../../src/cli/process.js";
import { syncEngineCommand } from "../../../src/cli/sync-engine.js";

/** How long the process may take to exit after SIGTERM. */
const EXIT_WITHIN_MS = 10_000;

const dir = mkdtempSync(join(tmpdir(), "appset-signal-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A local port nothing listens on: connections to it are refused at once. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

async function unreachableKubeconfig(): Promise<string> {
  const path = join(dir, `kubeconfig-${String(await closedPort())}`);
  const server = `https://127.0.0.1:${path.slice(path.lastIndexOf("-") + 1)}`;
  writeFileSync(
    path,
    JSON.stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: "c", cluster: { server, "insecure-skip-tls-verify": true } }],
      users: [{ name: "u", user: { token: "t" } }],
      contexts: [{ name: "c", context: { cluster: "c", user: "u", namespace: "argocd" } }],
      "current-context": "c",
    }),
  );
  return path;
}

/** Starts `appset ARGS`, resolves once stderr shows `waitFor`, and reports how the process ends. */
function start(args: readonly string[], waitFor: string) {
  const child = spawn(process.execPath, ["--import", "tsx", "src/cli/main.ts", ...args], { stdio: ["ignore", "ignore", "pipe"] });
  let logs = "";
  child.stderr.setEncoding("utf8");
  const ready = new Promise<void>((resolve) => {
    child.stderr.on("data", (chunk: string) => {
      logs += chunk;
      if (logs.includes(waitFor)) resolve();
    });
  });
  const exited = new Promise<number | string>((resolve) => child.on("exit", (code, signal) => resolve(code ?? signal ?? -1)));
  return { child, ready, exited, logs: () => logs };
}

describe("SIGTERM while the API server is unreachable", () => {
  const addrs = ["--probe-addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0", "--webhook-addr", "127.0.0.1:0"];
  it.each([
    // name; the command and its flags; the log line showing it is stuck retrying
    {
      name: "the controller waiting for its informers to sync exits 0 at once",
      args: ["controller", ...addrs],
      waitFor: '"msg":"list/watch failed"',
    },
    {
      name: "the controller trying to acquire its leader lease exits 0 at once",
      args: ["controller", "--enable-leader-election", ...addrs],
      waitFor: '"msg":"error retrieving lease"',
    },
    {
      name: "the sync engine waiting for the API exits 0 at once",
      args: ["sync-engine", ...addrs],
      waitFor: '"msg":"sync engine starting"',
    },
    {
      name: "the sync engine trying to acquire its leader lease exits 0 at once",
      args: ["sync-engine", "--enable-leader-election", ...addrs],
      waitFor: '"msg":"error retrieving lease"',
    },
  ])(
    "$name",
    async ({ args, waitFor }) => {
      const proc = start([...args, "--kubeconfig", await unreachableKubeconfig()], waitFor);
      try {
        await proc.ready;
        proc.child.kill("SIGTERM");
        const outcome = await Promise.race([
          proc.exited,
          new Promise((resolve) => globalThis.setTimeout(() => resolve("still running"), EXIT_WITHIN_MS)),
        ]);
        expect(outcome, proc.logs()).toBe(0);
      } finally {
        proc.child.kill("SIGKILL");
      }
    },
    90_000,
  );
});

describe("SIGTERM before the work starts", () => {
  const addrs = ["--probe-addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0", "--webhook-addr", "127.0.0.1:0"];
  it.each([
    // name; the command; its flags
    { name: "the controller stops with 0 instead of waiting for informers that never sync", command: controllerCommand, args: addrs },
    { name: "the controller with leader election stops with 0", command: controllerCommand, args: ["--enable-leader-election", ...addrs] },
    { name: "the sync engine stops with 0", command: syncEngineCommand, args: addrs },
  ])(
    "$name",
    async ({ command, args }) => {
      const io: ControllerIO = {
        out: () => undefined,
        err: () => undefined,
        env: {},
        onSignal: (handler) => {
          handler("SIGTERM");
          return () => undefined;
        },
      };
      const code = command([...args, "--kubeconfig", await unreachableKubeconfig()], io);
      const outcome = await Promise.race([
        code,
        new Promise((resolve) => globalThis.setTimeout(() => resolve("still running"), EXIT_WITHIN_MS)),
      ]);
      expect(outcome).toBe(0);
    },
    30_000,
  );
});
