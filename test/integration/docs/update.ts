/**
 * Rewrites the `output` blocks of documentation pages with what their commands print now:
 * `npx tsx test/integration/docs/update.ts docs/generators.md ...`. Read the diff before committing it:
 * the examples test exists to notice output that changed.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { readRepoFile } from "../../unit/deploy/generated.js";
import { REPO_ROOT } from "../../unit/deploy/kustomize.js";
import { PageRun } from "./runner.js";

/** `markdown` with the body of the fenced block opening at each line replaced. */
export function withOutputs(markdown: string, outputs: ReadonlyMap<number, string>): string {
  const lines = markdown.split("\n");
  for (const [line, text] of [...outputs].sort((a, b) => b[0] - a[0])) {
    const fence = /^`{3,}/.exec(lines[line - 1] ?? "")?.[0];
    if (fence === undefined) continue;
    let end = line;
    while (end < lines.length && lines[end]!.trimEnd() !== fence) end++;
    const body = text.endsWith("\n") ? text.slice(0, -1) : text;
    lines.splice(line, end - line, ...(body === "" ? [] : body.split("\n")));
  }
  return lines.join("\n");
}

for (const doc of process.argv.slice(2)) {
  const page = new PageRun(doc);
  const markdown = readRepoFile(doc);
  const failures = await page.run(markdown);
  await page.close();
  const next = withOutputs(markdown, page.outputs);
  if (next !== markdown) writeFileSync(join(REPO_ROOT, doc), next);
  process.stdout.write(`${doc}: ${next === markdown ? "unchanged" : "outputs rewritten"}\n`);
  for (const f of failures) process.stdout.write(`  ${f.split("\n")[0]!}\n`);
}
