/**
 * The pictures of the documentation: Mermaid blocks, which GitHub draws. Nothing here draws them;
 * these checks catch what most often breaks one: an unknown diagram type, a `;` (Mermaid ends a
 * statement there), and a flowchart edge or a sequence message naming a node or participant the
 * diagram does not declare. The pages that promise a picture have one.
 */
import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { readRepoFile } from "../deploy/generated.js";
import { REPO_ROOT } from "../deploy/kustomize.js";
import { docParts } from "./markdown.js";

interface Diagram {
  readonly where: string;
  readonly text: string;
}

const pages = readdirSync(`${REPO_ROOT}/docs`)
  .filter((f) => f.endsWith(".md"))
  .map((f) => `docs/${f}`);

const diagrams: Diagram[] = pages.flatMap((page) =>
  docParts(readRepoFile(page)).flatMap((p) =>
    p.type === "code" && p.lang === "mermaid" ? [{ where: `${page}:${String(p.line)}`, text: p.text }] : [],
  ),
);

/** The statements of a diagram: its lines, trimmed, without blanks and `%%` comments. */
function statements(text: string): string[] {
  return text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("%%"));
}

/** Problems of a flowchart: edges between nodes never declared with a label. */
function flowchartProblems(lines: readonly string[]): string[] {
  const declared = new Set<string>();
  for (const l of lines) {
    const node = /^(\w+)\s*(\[|\(|\{)/.exec(l);
    if (node !== null) declared.add(node[1]!);
    const subgraph = /^subgraph\s+(\w+)/.exec(l);
    if (subgraph !== null) declared.add(subgraph[1]!);
  }
  return lines.flatMap((l) => {
    const edge = /^(\w+)\s*(?:--|-\.|==)/.exec(l);
    if (edge === null) return [];
    const to = /(?:-->|-\.->|==>)\s*(?:\|[^|]*\|\s*)?(\w+)\s*$/.exec(l);
    return [edge[1]!, to?.[1]].filter((n) => n === undefined || !declared.has(n)).map((n) => `an edge to or from ${n ?? "nothing"}: ${l}`);
  });
}

/** Problems of a sequence diagram: messages between participants never declared. */
function sequenceProblems(lines: readonly string[]): string[] {
  const declared = new Set(lines.flatMap((l) => /^(?:participant|actor)\s+(\w+)/.exec(l)?.[1] ?? []));
  return lines.flatMap((l) => {
    const message = /^(\w+)\s*-[->x)]*>?>?\s*(\w+)\s*:/.exec(l);
    if (message === null) return [];
    return [message[1]!, message[2]!].filter((n) => !declared.has(n)).map((n) => `a message of ${n}: ${l}`);
  });
}

describe("the documentation's diagrams", () => {
  it("are pictures on the pages that promise one", () => {
    const drawn = new Set(diagrams.map((d) => d.where.split(":")[0]));
    for (const page of ["docs/migrate.md", "docs/progressive-syncs.md", "docs/sync-engine.md"]) expect(drawn, page).toContain(page);
  });

  it.each(diagrams)("$where is a diagram GitHub draws", ({ text }) => {
    const lines = statements(text);
    const kind = /^(flowchart|graph|sequenceDiagram|gantt|stateDiagram-v2)\b/.exec(lines[0] ?? "")?.[1];
    expect(kind, lines[0]).toBeDefined();
    expect(lines.filter((l) => l.includes(";"))).toEqual([]);
    const problems =
      kind === "sequenceDiagram" ? sequenceProblems(lines) : kind === "flowchart" || kind === "graph" ? flowchartProblems(lines) : [];
    expect(problems).toEqual([]);
  });

  it("finds undeclared names", () => {
    expect(flowchartProblems(["flowchart LR", 'a["A"]', 'a -- "x" --> b'])).toHaveLength(1);
    expect(sequenceProblems(["sequenceDiagram", "participant A", "A->>B: hello"])).toHaveLength(1);
    expect(sequenceProblems(["sequenceDiagram", "participant A as a", "participant B", "A->>B: hello", "B-->>A: back"])).toEqual([]);
  });
});
