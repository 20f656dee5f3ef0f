/**
 * How the examples harness reads a page: marker lines, table cells, which block a marker belongs
 * to, and the commands of a shell block. Running the examples is tested in test/integration/docs.
 */
import { describe, expect, it } from "vitest";
import { docParts, parseMarker, tableCells } from "./markdown.js";
import { splitCommands } from "./shell.js";

const FENCE = "```";
const block = (lang: string, text: string): string => `${FENCE}${lang}\n${text}${FENCE}\n`;

describe("the page reader", () => {
  it.each([
    { name: "a kind alone", line: "<!-- example: yaml -->", marker: { kind: "yaml", args: [] } },
    {
      name: "a kind with arguments",
      line: "<!--example: template go missingkey=error-->",
      marker: { kind: "template", args: ["go", "missingkey=error"] },
    },
    { name: "an ordinary comment", line: "<!-- BEGIN GENERATED: configuration reference -->", marker: undefined },
  ])("reads a marker line with $name", ({ line, marker }) => {
    expect(parseMarker(line)).toEqual(marker);
  });

  it("unescapes bars in table cells, code spans included", () => {
    expect(tableCells("| `{{ .a \\| upper }}` | b |")).toEqual(["`{{ .a | upper }}`", "b"]);
  });

  it("attaches a marker across blank lines and leaves later blocks unmarked", () => {
    const parts = docParts(`<!-- example: yaml -->\n\n${block("yaml", "a: 1\n")}\n${block("", "diagram\n")}`);
    expect(parts.map((p) => [p.type, p.line, p.marker?.kind])).toEqual([
      ["code", 3, "yaml"],
      ["code", 7, undefined],
    ]);
  });

  it("splits a shell block into commands, joining continued lines and here-documents", () => {
    const cmds = splitCommands("# a comment\ngit init \\\n  repo\ncat > f.yaml <<'EOF'\na: 1\nEOF\nappset version\n");
    expect(cmds.map((c) => c.words)).toEqual([
      ["git", "init", "repo"],
      ["cat", ">", "f.yaml"],
      ["appset", "version"],
    ]);
    expect(cmds[1]!.text).toBe("cat > f.yaml <<'EOF'\na: 1\nEOF");
  });
});
