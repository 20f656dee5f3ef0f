/**
 * What the Dockerfile promises, read from the Dockerfile itself: every stage on Node.js 24, the
 * final image holding only production dependencies and the compiled code, a numeric non-root user,
 * `appset controller` under tini as the entrypoint and a health check on the readiness endpoint.
 */
import { describe, expect, it } from "vitest";
import { dropInArgv } from "../../../src/cli/run.js";
import { OPTIONS } from "../../../src/config/index.js";
import { aptPackages, dockerfile, entrypointProgram, envOf, execForm, INIT_PREFIX, linkedCommands, parseDockerfile } from "./dockerfile.js";
import { readRepoFile } from "./generated.js";

const stages = dockerfile();
const final = stages.at(-1)!;
const copies = final.instructions.filter((i) => i.op === "COPY").map((i) => i.args);

describe("the Dockerfile", () => {
  it("builds every stage but the Go one on Node.js 24, and ends on Node.js 24", () => {
    expect(stages.length).toBeGreaterThanOrEqual(3);
    for (const s of stages.filter((x) => x.name !== "render-tools")) expect(s.from).toMatch(/^node:24[-.]/);
  });

  it("installs helm and kustomize built from the module the reference repo-server's programs are built from", () => {
    const tools = stages.find((s) => s.name === "render-tools");
    expect(tools?.from).toMatch(/^golang:/);
    const args = tools!.instructions.map((i) => `${i.op} ${i.args}`).join("\n");
    expect(args).toContain("COPY test/argocd/tools/go.mod test/argocd/tools/go.sum test/argocd/tools/tools.go ./");
    expect(args).toContain("GOTOOLCHAIN=go1.27.3");
    expect(args).toMatch(/-o \/out\/helm helm\.sh\/helm\/v4\/cmd\/helm/);
    expect(args).toMatch(/-o \/out\/kustomize sigs\.k8s\.io\/kustomize\/kustomize\/v5/);
    const pins = readRepoFile("test/argocd/tools/go.mod");
    expect(pins).toMatch(/helm\.sh\/helm\/v4 v4\.3\.2\b/);
    expect(pins).toMatch(/sigs\.k8s\.io\/kustomize\/kustomize\/v5 v5\.8\.3\b/);
    expect(copies).toContain("--from=render-tools /out/helm /out/kustomize /usr/local/bin/");
  });

  it("copies node_modules only from a stage that installed the production dependencies alone", () => {
    const nodeModules = copies.filter((c) => c.includes("node_modules"));
    expect(nodeModules).toHaveLength(1);
    const from = /--from=(\S+)/.exec(nodeModules[0]!)?.[1];
    const source = stages.find((s) => s.name === from);
    const installs = source?.instructions.filter((i) => i.op === "RUN" && i.args.includes("npm ci")) ?? [];
    expect(installs.map((i) => i.args)).toEqual([expect.stringContaining("--omit=dev")]);
  });

  it("ships the compiled code and package.json, not the sources", () => {
    expect(copies).toContainEqual(expect.stringMatching(/--from=\S+ \/src\/dist/));
    expect(copies.some((c) => /\bsrc\b/.test(c.replace("/src/", "")))).toBe(false);
  });

  it("carries the OCI labels, with package.json's version, description and license", () => {
    const pkg = JSON.parse(readRepoFile("package.json")) as { version: string; description: string; license: string };
    const labels: Record<string, string> = {};
    for (const i of final.instructions.filter((x) => x.op === "LABEL")) {
      for (const m of i.args.matchAll(/([\w.]+)="([^"]*)"/g)) labels[m[1]!] = m[2]!;
    }
    expect(labels).toEqual({
      "org.opencontainers.image.title": "appset",
      "org.opencontainers.image.description": pkg.description,
      "org.opencontainers.image.version": pkg.version,
      "org.opencontainers.image.licenses": pkg.license,
    });
  });

  it("runs as a numeric non-root user", () => {
    const user = final.instructions.filter((i) => i.op === "USER").at(-1)?.args ?? "";
    const [uid, gid] = user.split(":").map(Number);
    expect(uid).toBeGreaterThan(0);
    expect(gid).toBeGreaterThan(0);
  });

  it("enters as `appset controller` under tini, which the runtime stage installs from Debian", () => {
    expect(execForm(final, "ENTRYPOINT")).toEqual(["/usr/bin/tini", "--", "appset", "controller"]);
    expect(execForm(final, "ENTRYPOINT").slice(0, 2)).toEqual(INIT_PREFIX);
    expect(aptPackages(final)).toContain("tini");
    expect(entrypointProgram(final)).toEqual(["appset", "controller"]);
  });

  it("keeps argo-helm's leading program argument working after tini: the controller drops it", () => {
    const [program, ...entry] = entrypointProgram(final);
    const args = ["/usr/local/bin/argocd-applicationset-controller", "--loglevel", "debug"];
    expect(dropInArgv(program!, [...entry, ...args])).toEqual(["controller", "--loglevel", "debug"]);
  });

  it("runs a container command of Argo CD's program, which replaces tini's ENTRYPOINT, as the controller", () => {
    const command = ["/usr/local/bin/argocd-applicationset-controller", "--metrics-addr=:8080"];
    const linked = linkedCommands(final)[command[0]!.split("/").pop()!];
    expect(linked).toBe("/app/dist/cli/main.js");
    expect(dropInArgv("argocd-applicationset-controller", command.slice(1))).toEqual(["controller", "--metrics-addr=:8080"]);
  });

  it("keeps argo-helm's bare program argument working after tini", () => {
    const [program, ...entry] = entrypointProgram(final);
    expect(dropInArgv(program!, [...entry, "argocd-applicationset-controller", "--probe-addr=:8081"])).toEqual([
      "controller",
      "--probe-addr=:8081",
    ]);
  });

  it("links appset and Argo CD's program name to the compiled command", () => {
    expect(linkedCommands(final)).toEqual({ appset: "/app/dist/cli/main.js", "argocd-applicationset-controller": "/app/dist/cli/main.js" });
  });

  it("checks health on the readiness endpoint of the default probe address", () => {
    const probe = OPTIONS.find((o) => o.key === "probeAddr")?.default;
    expect(envOf(final)["APPSET_HEALTHCHECK_URL"]).toBe(`http://127.0.0.1${String(probe)}/readyz`);
    expect(execForm(final, "HEALTHCHECK")).toEqual(["node", "-e", expect.stringContaining("process.env.APPSET_HEALTHCHECK_URL")]);
  });

  it("runs Node in production mode with two malloc arenas (the side-by-side benchmark starts ours with this environment)", () => {
    expect(envOf(final)).toMatchObject({ NODE_ENV: "production", MALLOC_ARENA_MAX: "2" });
  });
});

describe("parseDockerfile", () => {
  it.each([
    { name: "continuation lines are joined", text: "FROM a\nRUN x \\\n  && y\n", args: ["x && y"] },
    { name: "comments are dropped", text: "FROM a\n# RUN no\nRUN yes\n", args: ["yes"] },
  ])("reads a stage where $name", ({ text, args }) => {
    expect(parseDockerfile(text)[0]!.instructions.map((i) => i.args)).toEqual(args);
  });

  it("refuses an instruction before the first FROM", () => {
    expect(() => parseDockerfile("RUN x\n")).toThrow("RUN before FROM");
  });

  it("lists the apt packages a stage installs, options dropped", () => {
    const [stage] = parseDockerfile("FROM a\nRUN apt-get update && apt-get install -y --no-install-recommends git tini && rm -rf x\n");
    expect(aptPackages(stage!)).toEqual(["git", "tini"]);
  });

  it("refuses an ENTRYPOINT without the init prefix", () => {
    const [stage] = parseDockerfile('FROM a\nENTRYPOINT ["appset", "controller"]\n');
    expect(() => entrypointProgram(stage!)).toThrow('the ENTRYPOINT does not start with /usr/bin/tini --: ["appset","controller"]');
  });
});
