/**
 * The commands of a documentation page's shell blocks, split the way a reader's shell would read
 * them: comments dropped, continued lines joined, here-documents kept with their command. Pure; the
 * commands are run by test/integration/docs/commands.ts.
 */
import { shellWords } from "../deploy/docs.js";

/** One command of a block: its full text (here-documents included) and the words of its first line. */
export interface DocCommand {
  readonly text: string;
  readonly words: readonly string[];
}

/** A command line without its trailing comment (a `#` after a blank, outside quotes). */
export function stripComment(line: string): string {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quote !== undefined) {
      if (ch === quote) quote = undefined;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
    } else if (ch === "#" && (i === 0 || /\s/.test(line[i - 1]!))) {
      return line.slice(0, i).trimEnd();
    }
  }
  return line;
}

/** The commands of a shell block: one per line, `\` continues a line, `<<'EOF'` takes lines up to EOF. */
export function splitCommands(block: string): DocCommand[] {
  const lines = block.split("\n");
  const out: DocCommand[] = [];
  for (let i = 0; i < lines.length; i++) {
    let line = stripComment(lines[i]!);
    if (line.trim() === "") continue;
    while (line.endsWith("\\") && i + 1 < lines.length) line = `${line.slice(0, -1)} ${lines[++i]!.trim()}`;
    const heredoc = /<<-?\s*'?(\w+)'?\s*$/.exec(line);
    let text = line;
    if (heredoc !== null) {
      const end = lines.indexOf(heredoc[1]!, i + 1);
      if (end < 0) throw new Error(`here-document ${heredoc[1]!} is not terminated`);
      text = [line, ...lines.slice(i + 1, end + 1)].join("\n");
      i = end;
    }
    const first = heredoc === null ? line : line.slice(0, heredoc.index);
    out.push({ text, words: shellWords(first.trim()) });
  }
  return out;
}
