import { describe, expect, it } from "vitest";
import { dropInArgv, run } from "./run.js";

async function invoke(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await run(
    argv,
    (s) => (out += s),
    (s) => (err += s),
  );
  return { code, out, err };
}

describe("appset", () => {
  it("prints the package version", async () => {
    const r = await invoke("version");
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^appset \d+\.\d+\.\d+\n$/);
  });

  it("prints usage with no command", async () => {
    expect((await invoke()).out).toContain("Usage: appset <command>");
  });

  it("rejects an unknown command with exit code 2 and the usage on stderr", async () => {
    const r = await invoke("frobnicate");
    expect(r.code).toBe(2);
    expect(r.err).toContain('unknown command "frobnicate"');
  });
});

describe("appset generate through the dispatcher", () => {
  it("resolves to exit code 1 with the error on stderr when the file does not exist", async () => {
    const r = await invoke("generate", "-f", "does-not-exist.yaml");
    expect(r.code).toBe(1);
    expect(r.err).toContain("does-not-exist.yaml");
  });
});

describe("dropInArgv: drop-in for Argo CD's manifests", () => {
  it.each([
    // name; the program name the process was started under; its arguments; what appset reads
    {
      name: "the image's entrypoint with argo-helm's first argument",
      program: "appset",
      argv: ["controller", "/usr/local/bin/argocd-applicationset-controller", "--loglevel", "debug"],
      out: ["controller", "--loglevel", "debug"],
    },
    {
      name: "the bare program name after controller",
      program: "appset",
      argv: ["controller", "argocd-applicationset-controller"],
      out: ["controller"],
    },
    {
      name: "Argo CD's program path in place of the command",
      program: "main.js",
      argv: ["/usr/local/bin/argocd-applicationset-controller", "--dry-run"],
      out: ["controller", "--dry-run"],
    },
    {
      name: "started through a link named like Argo CD's program",
      program: "argocd-applicationset-controller",
      argv: ["--policy", "sync"],
      out: ["controller", "--policy", "sync"],
    },
    {
      name: "a link and the argument together",
      program: "argocd-applicationset-controller",
      argv: ["/usr/local/bin/argocd-applicationset-controller"],
      out: ["controller"],
    },
    {
      name: "other arguments are left alone",
      program: "appset",
      argv: ["controller", "--policy", "argocd-applicationset-controller"],
      out: ["controller", "--policy", "argocd-applicationset-controller"],
    },
    {
      name: "the image's entrypoint with a container's args of sync-engine",
      program: "appset",
      argv: ["controller", "sync-engine", "--loglevel", "debug"],
      out: ["sync-engine", "--loglevel", "debug"],
    },
    {
      name: "a flag's value of sync-engine is left alone",
      program: "appset",
      argv: ["controller", "--policy", "sync-engine"],
      out: ["controller", "--policy", "sync-engine"],
    },
    {
      name: "a look-alike name is not Argo CD's program",
      program: "appset",
      argv: ["controller", "/bin/my-argocd-applicationset-controller"],
      out: ["controller", "/bin/my-argocd-applicationset-controller"],
    },
  ])("$name", ({ program, argv, out }) => {
    expect(dropInArgv(program, argv)).toEqual(out);
  });
});
