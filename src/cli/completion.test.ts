import { describe, expect, it } from "vitest";
import { completionCommand, completionScript, completionTree } from "./completion.js";
import { USAGE } from "./run.js";

const flagsOf = (path: string): readonly string[] => {
  const [cmd, sub] = path.split(" ");
  const node = completionTree().find((c) => c.name === cmd);
  return (sub === undefined ? node : node?.subcommands?.find((s) => s.name === sub))?.flags ?? [];
};

describe("completionTree", () => {
  it("has every command appset help lists", () => {
    const listed = [...USAGE.matchAll(/^ {2}([a-z-]+) /gm)].map((m) => m[1]);
    expect(completionTree().map((c) => c.name)).toEqual(listed);
  });

  it.each([
    // command; flags it completes; flags it does not
    { cmd: "list", has: ["--all-namespaces", "-A", "--output", "--kubeconfig"], not: ["--wait"] },
    { cmd: "get", has: ["--namespace", "-o"], not: ["--all-namespaces"] },
    { cmd: "refresh", has: ["--wait", "--timeout"], not: ["--output"] },
    {
      cmd: "sync",
      has: ["--revision", "--prune", "--dry-run", "--resource", "--sync-option", "--async", "--timeout", "-n"],
      not: ["--wait"],
    },
    { cmd: "diff", has: ["--namespace", "-n", "--exit-code", "--kubeconfig", "--context"], not: ["--revision"] },
    { cmd: "shards", has: ["--group", "--namespace", "-A", "--applications", "-o", "--kubeconfig"], not: ["--wait"] },
    { cmd: "generate", has: ["--file", "-f", "--from-cluster"], not: ["--kubeconfig"] },
    { cmd: "rollout plan", has: ["--policy", "--file"], not: ["--watch"] },
    { cmd: "rollout status", has: ["--watch", "--step"], not: ["--file"] },
    { cmd: "controller", has: ["--policy", "--enable-sync-engine", "--kubeconfig", "-n"], not: [] },
    { cmd: "sync-engine", has: ["--application-namespaces", "--kubeconfig"], not: ["--policy", "--enable-sync-engine"] },
  ])("$cmd", ({ cmd, has, not }) => {
    const flags = flagsOf(cmd);
    for (const f of has) expect(flags).toContain(f);
    for (const f of not) expect(flags).not.toContain(f);
  });
});

describe("completionScript", () => {
  it.each([
    // shell; a line the script holds
    { shell: "bash" as const, line: "complete -F _appset appset" },
    { shell: "bash" as const, line: '      list:-o | list:--output) words="wide name json yaml" ;;' },
    { shell: "bash" as const, line: '      shards:-o | shards:--output) words="wide json yaml" ;;' },
    { shell: "zsh" as const, line: "autoload -U +X bashcompinit && bashcompinit" },
    { shell: "fish" as const, line: 'complete -c appset -n "__fish_seen_subcommand_from refresh" -l wait' },
    { shell: "fish" as const, line: 'complete -c appset -n "__fish_seen_subcommand_from completion" -a "bash zsh fish"' },
  ])("$shell: $line", ({ shell, line }) => {
    expect(completionScript(shell).split("\n")).toContain(line);
  });
});

describe("appset completion", () => {
  it.each([
    // args; exit code
    { args: ["bash"], code: 0 },
    { args: [], code: 2 },
    { args: ["tcsh"], code: 2 },
    { args: ["--help"], code: 0 },
  ])("$args exits $code", ({ args, code }) => {
    let out = "";
    let err = "";
    expect(
      completionCommand(
        args,
        (s) => (out += s),
        (s) => (err += s),
      ),
    ).toBe(code);
    expect(code === 0 ? out : err).not.toBe("");
  });
});
