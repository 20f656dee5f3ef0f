/**
 * The `appset` command's dispatcher: maps a subcommand to what runs it and returns the exit code.
 * Each command's modules load when it runs, so a controller does not carry the CLI's
 * (docs/controller.md#memory-at-start).
 */
import { text } from "node:stream/consumers";
import { ARGOCD_APPSET_PROGRAM, version } from "./version.js";
import { processSignals } from "./process.js";

/** The usage of `appset` (the completion lists the same commands). */
export const USAGE = `Usage: appset <command> [flags]

Commands:
  version     print the version
  generate    render the Applications of an ApplicationSet file (appset generate -h)
  list        list the ApplicationSets of a namespace (-A: of all) (appset list -h)
  get         one ApplicationSet with its generated Applications (appset get -h)
  refresh     ask the controller to reconcile an ApplicationSet now (appset refresh -h)
  shards      the live members of a shard group and what each owns (appset shards -h)
  sync        sync an Application now through the sync engine (appset sync -h)
  diff        the sync engine's diff of an Application's manifests and live objects (appset diff -h)
  rollout     preview a rollout offline, or follow and steer its runs (appset rollout -h)
  controller  run the ApplicationSet controller (appset controller -h)
  sync-engine run only the sync engine (appset sync-engine -h)
  completion  print a shell completion script: bash, zsh or fish (appset completion -h)
  help        print this help
`;

function isArgoProgram(arg: string | undefined): boolean {
  return arg !== undefined && (arg === ARGOCD_APPSET_PROGRAM || arg.endsWith(`/${ARGOCD_APPSET_PROGRAM}`));
}

/**
 * The argument list as `appset` reads it, for drop-in use in Argo CD's manifests: started under
 * Argo CD's program name (a link named `argocd-applicationset-controller`) it is `appset
 * controller`, and a leading `/usr/local/bin/argocd-applicationset-controller` argument (what the
 * argo-helm chart and Argo CD's install pass as the container's first argument) is dropped, after
 * `controller` or in its place. The image's entrypoint is `appset controller` under tini, so a
 * container's `args: [sync-engine, ...]` arrives as `controller sync-engine ...`: that runs the sync
 * engine (the controller takes no positional argument), and tini stays PID 1.
 */
export function dropInArgv(programName: string, argv: readonly string[]): string[] {
  let args = [...argv];
  if (isArgoProgram(programName)) args = ["controller", ...args];
  if (isArgoProgram(args[0])) args = ["controller", ...args.slice(1)];
  if (args[0] === "controller" && isArgoProgram(args[1])) args = ["controller", ...args.slice(2)];
  if (args[0] === "controller" && args[1] === "sync-engine") args = args.slice(1);
  return args;
}

type Out = (s: string) => void;

/** What runs each command, by name; each loads its modules when it runs. */
const COMMANDS: Readonly<Record<string, (args: readonly string[], out: Out, err: Out) => Promise<number>>> = {
  generate: async (args, out, err) =>
    (await import("./generate.js")).generateCommand(args, { out, err, env: process.env, readStdin: () => text(process.stdin) }),
  rollout: async (args, out, err) =>
    (await import("./rollout.js")).rolloutCommand(args, {
      out,
      err,
      env: process.env,
      readStdin: () => text(process.stdin),
      isTTY: process.stdout.isTTY === true,
    }),
  list: async (args, out, err) => (await import("./appset-commands.js")).appSetCommand("list", args, { out, err, env: process.env }),
  get: async (args, out, err) => (await import("./appset-commands.js")).appSetCommand("get", args, { out, err, env: process.env }),
  refresh: async (args, out, err) => (await import("./appset-commands.js")).appSetCommand("refresh", args, { out, err, env: process.env }),
  sync: async (args, out, err) => (await import("./app-commands.js")).syncCommand(args, { out, err, env: process.env }),
  diff: async (args, out, err) => (await import("./app-diff-command.js")).diffCommand(args, { out, err, env: process.env }),
  shards: async (args, out, err) => (await import("./shards.js")).shardsCommand(args, { out, err, env: process.env }),
  completion: async (args, out, err) => (await import("./completion.js")).completionCommand(args, out, err),
  controller: async (args, out, err) =>
    (await import("./controller.js")).controllerCommand(args, { out, err, env: process.env, onSignal: processSignals }),
  "sync-engine": async (args, out, err) =>
    (await import("./sync-engine.js")).syncEngineCommand(args, { out, err, env: process.env, onSignal: processSignals }),
};

/** Runs one invocation and resolves to the process exit code. */
export async function run(argv: readonly string[], out: Out, err: Out): Promise<number> {
  const [command] = argv;
  switch (command) {
    case "version":
    case "--version":
      out(`appset ${version()}\n`);
      return 0;
    case undefined:
    case "help":
    case "--help":
    case "-h":
      out(USAGE);
      return 0;
    default: {
      const runs = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
      if (runs !== undefined) return runs(argv.slice(1), out, err);
      err(`appset: unknown command "${command}"\n\n${USAGE}`);
      return 2;
    }
  }
}
