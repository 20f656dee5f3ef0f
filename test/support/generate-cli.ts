/**
 * `appset generate` run in-process for tests: an ApplicationSet document to start from, input files
 * in temporary folders, and a run that collects what the command prints.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateCommand } from "../../src/cli/generate.js";

/** An ApplicationSet `demo` in `argocd` with a Go template naming each Application `{{ .name }}`. */
export const appSetYaml = (generators: unknown, extra: Record<string, unknown> = {}) => ({
  apiVersion: "argoproj.io/v1alpha1",
  kind: "ApplicationSet",
  metadata: { name: "demo", namespace: "argocd" },
  spec: {
    goTemplate: true,
    generators,
    template: {
      metadata: { name: "{{ .name }}" },
      spec: { project: "default", destination: { server: "{{ .server }}" }, source: { repoURL: "https://x", path: "." } },
    },
    ...extra,
  },
});

/** What one run printed and its exit code. */
export interface GenerateRun {
  code: number;
  out: string;
  err: string;
}

/** Input files and runs of `appset generate` under one environment; `cleanup` removes the files. */
export class GenerateCli {
  private readonly dirs: string[] = [];

  constructor(private readonly env: Record<string, string> = {}) {}

  /** Writes `content` (a string as it is, anything else as JSON) to a new file `name`; returns its path. */
  write(name: string, content: unknown): string {
    const dir = mkdtempSync(join(tmpdir(), "appset-generate-"));
    this.dirs.push(dir);
    const path = join(dir, name);
    writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content));
    return path;
  }

  /** Runs `appset generate args…`, in `cwd` when given. */
  async run(args: string[], cwd?: string): Promise<GenerateRun> {
    let out = "";
    let err = "";
    const code = await generateCommand(args, {
      out: (s) => (out += s),
      err: (s) => (err += s),
      env: this.env,
      ...(cwd === undefined ? {} : { cwd }),
    });
    return { code, out, err };
  }

  cleanup(): void {
    for (const dir of this.dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  }
}
