/**
 * Runs the examples of one documentation page in order, in a scratch directory of its own, and
 * returns what failed. Each marker kind is one handler; a block a reader would run or apply
 * (yaml, json, sh) without a marker is itself a failure, so no example escapes the tests.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { errorMessage } from "../../../src/errors.js";
import { REPO_ROOT } from "../../unit/deploy/kustomize.js";
import { checkCommand, runCommand, type CommandResult } from "./commands.js";
import { splitCommands } from "../../unit/docs/shell.js";
import { docParts, MARKED_LANGUAGES, type DocPart, type FencedBlock, type Marker } from "../../unit/docs/markdown.js";
import { checkFunctionList, checkTemplateTable, controllerMetrics, documentedMetrics } from "../../unit/docs/tables.js";
import { validateYaml } from "../../unit/docs/validate.js";

/** The marker kinds and what each does (the table of docs/README.md lists the same). */
export const MARKER_KINDS = [
  "file",
  "yaml",
  "run",
  "output",
  "check",
  "tested-by",
  "template",
  "metrics",
  "functions",
  "http-server",
] as const;

type Handler = (page: PageRun, part: DocPart, marker: Marker) => Promise<void>;

function code(part: DocPart, kind: string): FencedBlock {
  if (part.type !== "code") throw new Error(`"${kind}" must precede a code block`);
  return part;
}

const isData = (lang: string): boolean => ["yaml", "yml", "json"].includes(lang);

const HANDLERS: Record<(typeof MARKER_KINDS)[number], Handler> = {
  file: (page, part, m) => {
    const block = code(part, "file");
    const name = m.args[0];
    if (name === undefined) throw new Error("file needs a name");
    if (isData(block.lang)) validateYaml(block.text);
    const path = join(page.dir, name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, page.localize(block.text));
    return Promise.resolve();
  },
  yaml: (_page, part, m) => {
    validateYaml(code(part, "yaml").text, m.args[0]);
    return Promise.resolve();
  },
  run: async (page, part, m) => {
    const expectFailure = m.args[0] === "fails";
    const commands = splitCommands(page.localize(code(part, "run").text));
    for (const [i, cmd] of commands.entries()) {
      const res = await runCommand(cmd, page.dir);
      page.last = res;
      const last = i === commands.length - 1;
      if (res.code !== 0 && !(last && expectFailure)) throw new Error(`${res.command} exited ${String(res.code)}: ${res.stderr}`);
      if (last && expectFailure && res.code === 0) throw new Error(`${res.command} was documented to fail but exited 0`);
    }
  },
  output: (page, part, m) => {
    const block = code(part, "output");
    if (page.last === undefined) throw new Error("output without a command run before it");
    const got = page.last.code === 0 ? page.last.stdout : page.last.stderr;
    page.outputs.set(block.line, got);
    const ok = m.args[0] === "excerpt" ? got.includes(block.text) : got === block.text;
    if (!ok) throw new Error(`the output of ${page.last.command} differs from the page.\n--- documented\n${block.text}--- actual\n${got}`);
    return Promise.resolve();
  },
  check: async (page, part) => {
    for (const cmd of splitCommands(code(part, "check").text)) await checkCommand(cmd, page.dir);
  },
  "tested-by": (page, part, m) => {
    const test = m.args[0] ?? "";
    const path = join(REPO_ROOT, test);
    if (!existsSync(path)) throw new Error(`tested-by names ${test}, which does not exist`);
    if (!readFileSync(path, "utf8").includes(page.doc)) throw new Error(`${test} does not mention ${page.doc}`);
    if (part.type === "code" && isData(part.lang)) validateYaml(part.text);
    if (part.type === "code" && !isData(part.lang))
      for (const cmd of splitCommands(part.text)) if (cmd.text.includes("<<")) validateYaml(cmd.text.split("\n").slice(1, -1).join("\n"));
    return Promise.resolve();
  },
  template: (page, part, m) => {
    if (part.type !== "table") throw new Error('"template" must precede a table');
    const failures = checkTemplateTable(part, m.args);
    if (failures.length > 0) throw new Error(failures.join("\n"));
    return Promise.resolve();
  },
  metrics: async (_page, part) => {
    if (part.type !== "table") throw new Error('"metrics" must precede a table');
    const want = JSON.stringify(await controllerMetrics(), null, 1);
    const got = JSON.stringify(documentedMetrics(part), null, 1);
    if (want !== got)
      throw new Error(`the metrics table differs from the registered metrics.\n--- documented\n${got}\n--- registered\n${want}`);
  },
  functions: (_page, part, m) => {
    const failures = checkFunctionList(code(part, "functions").text, m.args[0]);
    if (failures.length > 0) throw new Error(failures.join("\n"));
    return Promise.resolve();
  },
  "http-server": async (page, part, m) => {
    const routes = JSON.parse(code(part, "http-server").text) as Record<string, unknown>;
    // The page names a fixed port; the server takes a free one, and the page's later files and
    // commands are given its address in place of the page's (a fixed port may be any process's).
    const server = await serveRoutes(routes);
    page.servers.push(server);
    page.addresses.set(`127.0.0.1:${String(Number(m.args[0]))}`, `127.0.0.1:${String((server.address() as AddressInfo).port)}`);
  },
};

/**
 * Serves `routes` on a free port of 127.0.0.1: each key is `METHOD /path` (the query is ignored),
 * each value the JSON body of a 200 answer; anything else is a 404.
 */
function serveRoutes(routes: Record<string, unknown>): Promise<Server> {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    const body = routes[`${req.method ?? "GET"} ${path}`];
    res
      .writeHead(body === undefined ? 404 : 200, { "Content-Type": "application/json" })
      .end(JSON.stringify(body ?? { message: "Not Found" }));
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve(server));
  });
}

/** The state of one page's run. */
export class PageRun {
  readonly dir = mkdtempSync(join(tmpdir(), "appset-docs-"));
  readonly servers: Server[] = [];
  /** The addresses the page names for its servers, and those they listen on. */
  readonly addresses = new Map<string, string>();
  last: CommandResult | undefined;
  /** The actual output behind each `output` block, by the line of its opening fence. */
  readonly outputs = new Map<number, string>();

  constructor(readonly doc: string) {}

  /** `text` with each server address the page names replaced by the one its server listens on. */
  localize(text: string): string {
    let out = text;
    for (const [named, actual] of this.addresses) out = out.replaceAll(named, actual);
    return out;
  }

  /** Runs every example of `markdown`; resolves to the failures, each naming its line. */
  async run(markdown: string): Promise<string[]> {
    const failures: string[] = [];
    let parts: DocPart[];
    try {
      parts = docParts(markdown);
    } catch (err) {
      return [`${this.doc}: ${errorMessage(err)}`];
    }
    for (const part of parts) {
      const where = `${this.doc}:${String(part.line)}`;
      if (part.marker === undefined) {
        if (part.type === "code" && MARKED_LANGUAGES.has(part.lang))
          failures.push(`${where}: a ${part.lang} block without an example marker`);
        continue;
      }
      const handler = HANDLERS[part.marker.kind as keyof typeof HANDLERS] as Handler | undefined;
      if (handler === undefined) {
        failures.push(`${where}: unknown example marker "${part.marker.kind}"`);
        continue;
      }
      try {
        await handler(this, part, part.marker);
      } catch (err) {
        failures.push(`${where} (${part.marker.kind}): ${errorMessage(err)}`);
      }
    }
    return failures;
  }

  /** Stops the page's servers and removes its scratch directory. */
  async close(): Promise<void> {
    await Promise.all(this.servers.map((s) => new Promise((resolve) => s.close(resolve))));
    rmSync(this.dir, { recursive: true, force: true });
  }
}
