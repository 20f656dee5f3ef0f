/**
 * fengari (the Lua VM of health scripts), loaded on the first script run: about 12 MB of resident
 * memory that a process running no Lua health check never pays (docs/controller.md#memory-at-start).
 * It is a CommonJS package, so a synchronous `require` loads it where a script runs.
 */
import { createRequire } from "node:module";
import type Fengari from "fengari";

let loaded: typeof Fengari | undefined;

/** fengari's API, loaded once. */
export function fengariLib(): typeof Fengari {
  loaded ??= createRequire(import.meta.url)("fengari") as typeof Fengari;
  return loaded;
}
