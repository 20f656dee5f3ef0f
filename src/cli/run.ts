/**
 * The `appset` command's dispatcher: maps a subcommand to what runs it and returns the exit code.
 */
import { readFileSync } from "node:fs";
import { text } from "node:stream/consumers";
import { generateCommand } from "./generate.js";

const USAGE = `Usage: appset <command> [flags]

Commands:
  version     print the version
  generate    render the Applications of an ApplicationSet file (appset generate -h)
  help        print this help
`;

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
  return pkg.version;
}

/** Runs one invocation and returns the process exit code. */
export function run(argv: readonly string[], out: (s: string) => void, err: (s: string) => void): number {
  const [command] = argv;
  switch (command) {
    case "version":
    case "--version":
      out(`appset ${version()}\n`);
      return 0;
    case "generate":
      // Asynchronous: the exit code is set when rendering finishes (run() itself stays synchronous).
      void generateCommand(argv.slice(1), { out, err, env: process.env, readStdin: () => text(process.stdin) }).then((code) => {
        process.exitCode = code;
      });
      return 0;
    case undefined:
    case "help":
    case "--help":
    case "-h":
      out(USAGE);
      return 0;
    default:
      err(`appset: unknown command "${command}"\n\n${USAGE}`);
      return 2;
  }
}
