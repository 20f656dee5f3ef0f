/**
 * Reads the examples out of a Markdown page, so tests can run every one of them: fenced code blocks
 * with their language, and shell blocks split into commands (a here-document becomes the command's
 * stdin). Pure: text in, values out.
 */

/** One fenced code block. */
export interface CodeBlock {
  readonly lang: string;
  readonly text: string;
}

/** One shell command: its words and the here-document fed to it, if any. */
export interface ShellCommand {
  readonly argv: readonly string[];
  readonly stdin?: string;
}

/** Every fenced code block of `markdown`, in order. */
export function codeBlocks(markdown: string): CodeBlock[] {
  const out: CodeBlock[] = [];
  const re = /^```(\w*)\n([\s\S]*?)^```$/gm;
  for (const m of markdown.matchAll(re)) out.push({ lang: m[1] ?? "", text: m[2] ?? "" });
  return out;
}

/** Splits one command line into words: blanks separate, single and double quotes group. */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: string | undefined;
  for (const ch of line) {
    if (quote !== undefined) {
      if (ch === quote) quote = undefined;
      else word += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      word ??= "";
    } else if (ch === " " || ch === "\t") {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else {
      word = (word ?? "") + ch;
    }
  }
  if (quote !== undefined) throw new Error(`unterminated quote in: ${line}`);
  if (word !== undefined) words.push(word);
  return words;
}

/** The commands of a shell block; `cmd <<'EOF'` takes the following lines up to `EOF` as stdin. */
export function shellCommands(block: string): ShellCommand[] {
  const lines = block.split("\n");
  const out: ShellCommand[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === "" || line.startsWith("#")) continue;
    const heredoc = /^(.*?)\s*<<\s*'?(\w+)'?$/.exec(line);
    if (heredoc === null) {
      out.push({ argv: shellWords(line) });
      continue;
    }
    const end = lines.indexOf(heredoc[2]!, i + 1);
    if (end < 0) throw new Error(`here-document ${heredoc[2]} is not terminated`);
    out.push({ argv: shellWords(heredoc[1]!), stdin: lines.slice(i + 1, end).join("\n") + "\n" });
    i = end;
  }
  return out;
}
