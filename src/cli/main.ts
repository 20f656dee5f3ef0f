#!/usr/bin/env node
/**
 * The `appset` command: the composition root. It reads flags and the environment (the only module
 * that may), builds the logger, clock and Kubernetes client, and starts what the subcommand asks for.
 */
import { run } from "./run.js";

process.exitCode = await run(process.argv.slice(2), (s) => process.stdout.write(s), (s) => process.stderr.write(s));
