/**
 * Rewrites the generated parts of deploy/ and docs/ (see generated.ts):
 * `npx tsx test/unit/deploy/generate.ts`. Prints each file it changed.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { GENERATED_FILES, readRepoFile } from "./generated.js";
import { REPO_ROOT } from "./kustomize.js";

for (const file of GENERATED_FILES) {
  let current = "";
  try {
    current = readRepoFile(file.path);
  } catch {
    // a bundle not generated yet
  }
  const next = file.expected(current);
  if (next !== current) {
    writeFileSync(join(REPO_ROOT, file.path), next);
    process.stdout.write(`wrote ${file.path}\n`);
  }
}
