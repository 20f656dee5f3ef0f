/**
 * `appset completion bash|zsh|fish`: a script completing the commands, the `rollout` subcommands
 * and each command's flags (and the values of `--output` where they are a fixed few). The lists are
 * static, generated from the commands' flag definitions: the controller's table of settings, the
 * sync engine's share of it, and the parseArgs options of the others. Pure but for the output.
 */
import { OPTIONS, SYNC_ENGINE_SETTINGS } from "../config/index.js";
import { APP_COMMANDS } from "./app-flags.js";
import { APPSET_COMMANDS } from "./appset-flags.js";
import { GENERATE_OPTIONS } from "./generate.js";
import { CLUSTER_COMMANDS, CLUSTER_OPTIONS } from "./rollout-commands.js";
import { PLAN_OPTIONS } from "./rollout-plan.js";

/** What is completed after `appset WORD` (and after `appset rollout SUB`). */
export interface CompletionNode {
  readonly name: string;
  readonly flags: readonly string[];
  readonly subcommands?: readonly CompletionNode[];
}

const longFlags = (options: Readonly<Record<string, { type: string; short?: string }>>): string[] =>
  Object.entries(options).flatMap(([name, o]) => [`--${name}`, ...(o.short === undefined ? [] : [`-${o.short}`])]);

const settingFlags = (keep: (key: string) => boolean): string[] => [
  ...OPTIONS.filter((o) => o.flag !== undefined && keep(o.key)).map((o) => `--${o.flag!}`),
  "-n",
  "--help",
  "-h",
];

/** Every command and its flags, in the order `appset help` lists them. */
export function completionTree(): CompletionNode[] {
  return [
    { name: "version", flags: [] },
    { name: "generate", flags: longFlags(GENERATE_OPTIONS) },
    ...[...APPSET_COMMANDS, ...APP_COMMANDS].map((c) => ({
      name: c.name,
      flags: c.flags.flatMap((f) => [`--${f.name}`, ...(f.short === undefined ? [] : [`-${f.short}`])]),
    })),
    {
      name: "rollout",
      flags: ["--help", "-h"],
      subcommands: [
        { name: "plan", flags: longFlags(PLAN_OPTIONS) },
        ...CLUSTER_COMMANDS.map((name) => ({ name, flags: longFlags(CLUSTER_OPTIONS) })),
      ],
    },
    { name: "controller", flags: settingFlags(() => true) },
    { name: "sync-engine", flags: settingFlags((key) => SYNC_ENGINE_SETTINGS.has(key as never)) },
    { name: "completion", flags: [] },
    { name: "help", flags: [] },
  ];
}

/** The shells a script is written for. */
export const SHELLS = ["bash", "zsh", "fish"] as const;
export type Shell = (typeof SHELLS)[number];

/** The fixed values of `-o` for `list` and `get`, and the shells of `completion`. */
function valueCases(): string[] {
  const cases = APPSET_COMMANDS.flatMap((c) => {
    const values = c.flags.find((f) => f.name === "output")?.values;
    return values === undefined ? [] : [`      ${c.name}:-o | ${c.name}:--output) words="${values.join(" ")}" ;;`];
  });
  return [...cases, `      completion:completion) words="${SHELLS.join(" ")}" ;;`];
}

function bashScript(tree: readonly CompletionNode[]): string {
  const rollout = tree.find((c) => c.name === "rollout")?.subcommands ?? [];
  const commandCases = tree.filter((c) => c.name !== "rollout").map((c) => `    ${c.name}) words="${c.flags.join(" ")}" ;;`);
  const rolloutCases = rollout.map((c) => `    rollout:${c.name}) words="${c.flags.join(" ")}" ;;`);
  return `# appset completion for bash: source <(appset completion bash)
_appset() {
  local cur=\${COMP_WORDS[COMP_CWORD]} prev=\${COMP_WORDS[COMP_CWORD-1]} cmd=\${COMP_WORDS[1]} words=""
  if [ "$COMP_CWORD" -eq 1 ]; then
    words="${tree.map((c) => c.name).join(" ")}"
  elif [ "$cmd" = rollout ] && [ "$COMP_CWORD" -eq 2 ]; then
    words="${rollout.map((c) => c.name).join(" ")}"
  else
    case "$cmd:$prev" in
${valueCases().join("\n")}
    esac
  fi
  if [ -z "$words" ] && [ "$COMP_CWORD" -gt 1 ]; then
    case "$cmd" in
${commandCases.join("\n")}
    esac
    case "$cmd:\${COMP_WORDS[2]}" in
${rolloutCases.join("\n")}
    esac
  fi
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -F _appset appset
`;
}

function zshScript(tree: readonly CompletionNode[]): string {
  return `#compdef appset
# appset completion for zsh: source <(appset completion zsh), or save it as _appset on $fpath
autoload -U +X bashcompinit && bashcompinit
${bashScript(tree)}`;
}

function fishScript(tree: readonly CompletionNode[]): string {
  const names = tree.map((c) => c.name);
  const lines = [`# appset completion for fish: appset completion fish | source`, "complete -c appset -f"];
  lines.push(`complete -c appset -n "not __fish_seen_subcommand_from ${names.join(" ")}" -a "${names.join(" ")}"`);
  const flag = (f: string): string => (f.startsWith("--") ? `-l ${f.slice(2)}` : `-s ${f.slice(1)}`);
  for (const c of tree) {
    if (c.flags.length > 0) lines.push(...c.flags.map((f) => `complete -c appset -n "__fish_seen_subcommand_from ${c.name}" ${flag(f)}`));
    const subs = c.subcommands ?? [];
    if (subs.length === 0) continue;
    const subNames = subs.map((s) => s.name).join(" ");
    lines.push(
      `complete -c appset -n "__fish_seen_subcommand_from ${c.name}; and not __fish_seen_subcommand_from ${subNames}" -a "${subNames}"`,
    );
    for (const s of subs)
      lines.push(
        ...s.flags.map(
          (f) => `complete -c appset -n "__fish_seen_subcommand_from ${c.name}; and __fish_seen_subcommand_from ${s.name}" ${flag(f)}`,
        ),
      );
  }
  lines.push(`complete -c appset -n "__fish_seen_subcommand_from completion" -a "${SHELLS.join(" ")}"`);
  return `${lines.join("\n")}\n`;
}

/** The completion script for `shell`. */
export function completionScript(shell: Shell): string {
  const tree = completionTree();
  if (shell === "bash") return bashScript(tree);
  if (shell === "zsh") return zshScript(tree);
  return fishScript(tree);
}

const USAGE = `Usage: appset completion bash|zsh|fish

Prints a script completing appset's commands and flags:
  bash:  source <(appset completion bash)        (or save it in /etc/bash_completion.d/appset)
  zsh:   source <(appset completion zsh)
  fish:  appset completion fish | source          (or save it in ~/.config/fish/completions/appset.fish)
`;

/** Runs `appset completion SHELL`; resolves to the exit code (2: no or an unknown shell). */
export function completionCommand(args: readonly string[], out: (s: string) => void, err: (s: string) => void): number {
  const [shell] = args;
  if (shell === "-h" || shell === "--help" || shell === "help") {
    out(USAGE);
    return 0;
  }
  if (args.length !== 1 || !(SHELLS as readonly string[]).includes(shell ?? "")) {
    err(`appset completion: name one shell: ${SHELLS.join(", ")}\n\n${USAGE}`);
    return 2;
  }
  out(completionScript(shell as Shell));
  return 0;
}
