/**
 * The image's contents, tested without a container engine: the sources are bundled as the
 * Dockerfile's build stage does (`npm run build`, scripts/build.ts) into an /app-like folder, the command is put
 * on PATH as the Dockerfile links it, and the process is started with the Dockerfile's ENTRYPOINT
 * (after its init prefix, `/usr/bin/tini --`: tini is not on the test machines) and environment,
 * plus the flags a Deployment would add. It becomes ready, the Dockerfile's HEALTHCHECK command
 * passes against it (and fails against a dead port), it reconciles an ApplicationSet, writes
 * nothing into its application folder, and stops with exit 0 on SIGTERM.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { KubeApiClient, resources } from "../../src/kube/index.js";
import { dockerfile, entrypointProgram, envOf, execForm, linkedCommands } from "../unit/deploy/dockerfile.js";
import { REPO_ROOT } from "../unit/deploy/kustomize.js";

const run = promisify(execFile);
const final = dockerfile().at(-1)!;
const ns = `image-${randomBytes(3).toString("hex")}`;
let root: string;
let app: string;
let bin: string;
let client: KubeApiClient;
let child: ChildProcess;
let exited: Promise<number | string>;
const logs: Array<Record<string, unknown>> = [];

/** Every file under `dir`, relative, sorted (symlinked folders are not followed). */
function listing(dir: string): string[] {
  return (readdirSync(dir, { recursive: true, withFileTypes: false }) as string[]).filter((p) => !p.startsWith("node_modules/")).sort();
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "appset-image-"));
  app = join(root, "app");
  bin = join(root, "bin");
  mkdirSync(bin, { recursive: true });
  // The build stage: `npm run build` is scripts/build.ts, here with the output in the /app-like folder.
  await run(process.execPath, [join(REPO_ROOT, "scripts", "build.ts"), join(app, "dist", "cli")]);
  copyFileSync(join(REPO_ROOT, "package.json"), join(app, "package.json"));
  symlinkSync(join(REPO_ROOT, "node_modules"), join(app, "node_modules"));
  for (const [name, target] of Object.entries(linkedCommands(final))) {
    const inApp = join(app, target.replace(/^\/app\//, ""));
    chmodSync(inApp, 0o755);
    symlinkSync(inApp, join(bin, name));
  }
  client = KubeApiClient.fromConfig({ kind: "file", path: inject("kubeconfigPath") });
  await client.create(resources.Namespaces, { metadata: { name: ns } });
}, 240_000);

afterAll(async () => {
  if (child?.exitCode === null) child.kill("SIGKILL");
  await client.delete(resources.Namespaces, { name: ns }).catch(() => undefined);
  await client.transport.close();
  rmSync(root, { recursive: true, force: true });
});

function waitForLog(msg: string, timeoutMs = 60_000): Promise<Record<string, unknown>> {
  return (async () => {
    for (const deadline = performance.now() + timeoutMs; performance.now() < deadline; await sleep(100)) {
      const hit = logs.find((l) => l["msg"] === msg);
      if (hit !== undefined) return hit;
    }
    throw new Error(`no log "${msg}" in: ${JSON.stringify(logs.slice(-5))}`);
  })();
}

async function healthcheck(url: string): Promise<number> {
  const [cmd, ...args] = execForm(final, "HEALTHCHECK");
  const exe = cmd === "node" ? process.execPath : cmd!;
  return run(exe, args, { env: { ...envOf(final), APPSET_HEALTHCHECK_URL: url } }).then(
    () => 0,
    (err: { code?: number }) => err.code ?? -1,
  );
}

describe("the image's entrypoint", () => {
  it("starts from the compiled code as ENTRYPOINT does and becomes ready", async () => {
    const before = listing(app);
    const [cmd, ...entryArgs] = entrypointProgram(final);
    const flags = ["--namespace", ns, "--probe-addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0", "--webhook-addr", "127.0.0.1:0"];
    child = spawn(cmd!, [...entryArgs, ...flags], {
      cwd: app,
      env: { ...envOf(final), PATH: `${bin}:${process.env["PATH"]}`, HOME: root, TMPDIR: root, KUBECONFIG: inject("kubeconfigPath") },
      stdio: ["ignore", "ignore", "pipe"],
    });
    exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve(code ?? signal ?? -1)));
    let buffer = "";
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
      const lines = (buffer + chunk).split("\n");
      buffer = lines.pop() ?? "";
      for (const line of lines) logs.push(line.startsWith("{") ? (JSON.parse(line) as Record<string, unknown>) : { msg: line });
    });
    const started = await waitForLog("applicationset controller starting");
    const probe = String(started["probe"]);
    for (
      let i = 0;
      i < 300 &&
      (await fetch(`${probe}/readyz`).then(
        (r) => r.status,
        () => 0,
      )) !== 200;
      i++
    )
      await sleep(100);
    expect(await healthcheck(`${probe}/readyz`)).toBe(0);
    expect(listing(app)).toEqual(before);
  });

  it("fails the HEALTHCHECK when nothing answers on the readiness endpoint", async () => {
    expect(await healthcheck("http://127.0.0.1:9/readyz")).toBe(1);
  });

  it("reconciles an ApplicationSet into its Application", async () => {
    // The project first: an ApplicationSet naming a missing project is an error until a later requeue.
    await client.create(resources.AppProjects, { metadata: { name: "default", namespace: ns }, spec: {} });
    await client.create(resources.ApplicationSets, {
      apiVersion: "argoproj.io/v1alpha1",
      kind: "ApplicationSet",
      metadata: { name: "image", namespace: ns },
      spec: {
        generators: [{ list: { elements: [{ env: "dev" }] } }],
        template: {
          metadata: { name: "{{env}}-image" },
          spec: {
            project: "default",
            source: { repoURL: "https://example.com/r.git", path: "." },
            destination: { server: "https://kubernetes.default.svc", namespace: "dev" },
          },
        },
      },
    });
    let found = false;
    for (let i = 0; i < 300 && !found; i++) {
      found = (await client.list(resources.Applications, { namespace: ns })).items.some((a) => a.metadata?.name === "dev-image");
      if (!found) await sleep(100);
    }
    const status = (await client.get(resources.ApplicationSets, { namespace: ns, name: "image" }))["status"];
    expect(found, JSON.stringify({ status, logs: logs.slice(-5) })).toBe(true);
  });

  it("stops cleanly on SIGTERM", async () => {
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  });
});
