/**
 * The `yaml` library, loaded on first use: YAML is read only by some generators, template
 * functions, the kubeconfig and the sync engine, and an installation that uses none of them does
 * not pay for the library's modules in resident memory (docs/controller.md#memory-at-start). A lint
 * rule keeps other imports of `yaml` out of src.
 */
import type * as Yaml from "yaml";
import { onFirstUse } from "./first-use.js";

/** The library (its Node build, the one an `import` of `yaml` gives too). */
export const yaml = onFirstUse<typeof Yaml>("yaml");
