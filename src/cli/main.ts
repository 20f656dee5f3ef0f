#!/usr/bin/env node
/**
 * The `appset` command: the composition root. It reads flags and the environment (the only module
 * that may), builds the logger, clock and Kubernetes client, and starts what the subcommand asks for.
 */
import { basename } from "node:path";
import { dropInArgv, run } from "./run.js";

process.exitCode = await run(
  dropInArgv(basename(process.argv[1] ?? ""), process.argv.slice(2)),
  (s) => process.stdout.write(s),
  (s) => process.stderr.write(s),
);
