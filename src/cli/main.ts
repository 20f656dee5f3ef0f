#!/usr/bin/env -S node --max-semi-space-size=1 --optimize-for-size
/**
 * The `appset` command: the composition root. It reads flags and the environment (the only module
 * that may), builds the logger, clock and Kubernetes client, and starts what the subcommand asks for.
 *
 * The first line sets V8's heap for a controller (docs/controller.md#v8-settings): a young generation
 * of 1 MiB semi-spaces and V8's memory-saving mode, which keep its peak near what it holds.
 */
import { basename } from "node:path";
import { dropInArgv, run } from "./run.js";

process.exitCode = await run(
  dropInArgv(basename(process.argv[1] ?? ""), process.argv.slice(2)),
  (s) => process.stdout.write(s),
  (s) => process.stderr.write(s),
);
