/**
 * Reads the Dockerfile into stages of instructions (continuation lines joined, comments dropped),
 * so tests can check what the image holds and start the built code exactly as its ENTRYPOINT does.
 */
import { readRepoFile } from "./generated.js";

/** One instruction: its keyword (upper case) and the rest of the line. */
export interface Instruction {
  readonly op: string;
  readonly args: string;
}

/** One build stage: its FROM line and the instructions after it. */
export interface Stage {
  readonly from: string;
  readonly name: string | undefined;
  readonly instructions: readonly Instruction[];
}

/** The stages of a Dockerfile's text, in order. */
export function parseDockerfile(text: string): Stage[] {
  const joined = text
    .split("\n")
    .filter((l) => !l.trimStart().startsWith("#"))
    .join("\n")
    .replace(/\s*\\\n\s*/g, " ");
  const stages: Array<{ from: string; name: string | undefined; instructions: Instruction[] }> = [];
  for (const line of joined.split("\n")) {
    const m = /^\s*([A-Za-z]+)\s+(.*)$/.exec(line);
    if (m === null) continue;
    const op = m[1]!.toUpperCase();
    const args = m[2]!.trim();
    if (op === "FROM") {
      const [from, as, name] = args.split(/\s+/);
      stages.push({ from: from!, name: as?.toUpperCase() === "AS" ? name : undefined, instructions: [] });
    } else {
      const stage = stages.at(-1);
      if (stage === undefined) throw new Error(`${op} before FROM`);
      stage.instructions.push({ op, args });
    }
  }
  return stages;
}

/** The repository's Dockerfile, parsed. */
export function dockerfile(): Stage[] {
  return parseDockerfile(readRepoFile("Dockerfile"));
}

/** The JSON (exec) form of the final stage's `op`, e.g. ENTRYPOINT; the HEALTHCHECK's CMD after its options. */
export function execForm(stage: Stage, op: "ENTRYPOINT" | "HEALTHCHECK"): string[] {
  const ins = stage.instructions.filter((i) => i.op === op).at(-1);
  if (ins === undefined) throw new Error(`no ${op}`);
  const json = op === "HEALTHCHECK" ? ins.args.slice(ins.args.indexOf(" CMD ") + 5) : ins.args;
  return JSON.parse(json) as string[];
}

/** The final stage's ENV settings. */
export function envOf(stage: Stage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const i of stage.instructions.filter((x) => x.op === "ENV")) {
    for (const m of i.args.matchAll(/(\w+)=(\S+)/g)) out[m[1]!] = m[2]!;
  }
  return out;
}

/** Commands put on PATH by `ln -s <target> /usr/local/bin/<name>` in the final stage. */
export function linkedCommands(stage: Stage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const i of stage.instructions.filter((x) => x.op === "RUN")) {
    for (const m of i.args.matchAll(/ln -s (\S+) \/usr\/local\/bin\/(\S+)/g)) out[m[2]!] = m[1]!;
  }
  return out;
}

/** The init process the image starts as PID 1 (Debian's tini) and the separator before the program it runs. */
export const INIT_PREFIX: readonly string[] = ["/usr/bin/tini", "--"];

/**
 * The final stage's ENTRYPOINT without its init prefix: the program tini runs. The tests start it
 * directly, since tini is not on the machines they run on; an ENTRYPOINT that does not start with
 * the prefix is an error.
 */
export function entrypointProgram(stage: Stage): string[] {
  const entry = execForm(stage, "ENTRYPOINT");
  if (!INIT_PREFIX.every((part, i) => entry[i] === part)) {
    throw new Error(`the ENTRYPOINT does not start with ${INIT_PREFIX.join(" ")}: ${JSON.stringify(entry)}`);
  }
  return entry.slice(INIT_PREFIX.length);
}

/** The packages the stage installs with `apt-get install` (options dropped). */
export function aptPackages(stage: Stage): string[] {
  const out: string[] = [];
  for (const i of stage.instructions.filter((x) => x.op === "RUN")) {
    for (const m of i.args.matchAll(/apt-get install([^&;]*)/g)) {
      out.push(...m[1]!.split(/\s+/).filter((w) => w !== "" && !w.startsWith("-")));
    }
  }
  return out;
}
