import { mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { GitReader, TreeEntry } from "../../git/index.js";
import { copyWorkspace, writeWorkspace, type Workspace } from "./workspace.js";

/** A tree of blobs (`{ link }`: a symlink) and a reader that serves their contents. */
type Files = Record<string, string | { link: string } | { mode: string; text: string }>;

function repo(files: Files): { git: GitReader; tree: TreeEntry[] } {
  const tree: TreeEntry[] = [];
  const content = new Map<string, Buffer>();
  for (const [i, [path, spec]] of Object.entries(files).entries()) {
    const oid = String(i).padStart(40, "0");
    const [mode, text] = typeof spec === "string" ? ["100644", spec] : "link" in spec ? ["120000", spec.link] : [spec.mode, spec.text];
    tree.push({ path, type: "blob", mode, oid });
    content.set(oid, Buffer.from(text));
  }
  const git: GitReader = {
    resolveRevision: () => Promise.resolve("c"),
    listTree: () => Promise.resolve(tree),
    readBlobs: (_u, _c, entries) => Promise.resolve(entries.map((e) => content.get(e.oid)!)),
  };
  return { git, tree };
}

const opened: Workspace[] = [];
const temps: string[] = [];
afterEach(async () => {
  for (const ws of opened.splice(0)) await ws.dispose();
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

async function write(files: Parameters<typeof repo>[0]): Promise<Workspace> {
  const { git, tree } = repo(files);
  const ws = await writeWorkspace({ git, repoURL: "https://git.example/r", commit: "c", tree });
  opened.push(ws);
  return ws;
}

describe("writeWorkspace", () => {
  it("writes files with their mode and keeps a link to a file inside", async () => {
    const ws = await write({
      "a/values.yaml": "x: 1",
      "run.sh": { mode: "100755", text: "#!/bin/sh" },
      "b/v.yaml": { link: "../a/values.yaml" },
    });
    expect(readFileSync(join(ws.dir, "b/v.yaml"), "utf8")).toBe("x: 1");
    expect(readlinkSync(join(ws.dir, "b/v.yaml"))).toBe("../a/values.yaml");
    expect(statSync(join(ws.dir, "run.sh")).mode & 0o777).toBe(0o755);
  });

  it("keeps a dangling link that points inside", async () => {
    const ws = await write({ "a.yaml": { link: "gone.yaml" } });
    expect(readlinkSync(join(ws.dir, "a.yaml"))).toBe("gone.yaml");
  });

  it.each<{ name: string; files: Files; file: string }>([
    { name: "an absolute target", files: { "v.yaml": { link: "/etc/passwd" } }, file: "v.yaml" },
    { name: "a target above the root", files: { "a/v.yaml": { link: "../../secret" } }, file: "a/v.yaml" },
    {
      name: "a chain that leaves through a second link",
      files: { "a.yaml": { link: "b.yaml" }, "b.yaml": { link: "../x" } },
      file: "a.yaml",
    },
    { name: "a dangling chain that leaves", files: { "a.yaml": { link: "b/c" }, b: { link: "../nowhere" } }, file: "a.yaml" },
  ])("refuses a link with $name", async ({ files, file }) => {
    await expect(write(files)).rejects.toThrow(`repository contains out-of-bounds symlinks. file: ${file}`);
  });

  it.each<{ name: string; files: Files; file: string }>([
    { name: "the root", files: { l: { link: "." } }, file: "l" },
    { name: "a folder", files: { "dir/x.yaml": "x", l: { link: "dir" } }, file: "l" },
    // each link looks inside on its own text; together they leave (a → ., b → a/..)
    { name: "a chain whose every link looks inside", files: { a: { link: "." }, b: { link: "a/.." } }, file: "a" },
  ])("refuses a link to $name (a directory)", async ({ files, file }) => {
    await expect(write(files)).rejects.toThrow(`repository contains a symlink to a directory, which is not supported. file: ${file}`);
  });

  it("refuses an entry below a link before writing anything", async () => {
    const { git, tree } = repo({ l: { link: "sub" }, "l/x.yaml": "x" });
    await expect(writeWorkspace({ git, repoURL: "r", commit: "c", tree })).rejects.toThrow("file: l");
  });

  it.each(["../escaped", "a/../../escaped", "/abs", "a//b", ".git/config", "a/.GIT/hooks"])("refuses to write %s", async (path) => {
    const { git, tree } = repo({ [path]: "owned" });
    await expect(writeWorkspace({ git, repoURL: "r", commit: "c", tree })).rejects.toThrow("outside the repository");
    expect(existsSync(join(tmpdir(), "escaped"))).toBe(false);
  });
});

describe("copyWorkspace", () => {
  function chart(setup: (dir: string) => void): string {
    const dir = mkdtempSync(join(tmpdir(), "chart-"));
    temps.push(dir);
    writeFileSync(join(dir, "Chart.yaml"), "name: c");
    setup(dir);
    return dir;
  }

  it("lists the files of a chart whose links stay inside", async () => {
    const ws = await copyWorkspace(chart((d) => symlinkSync("Chart.yaml", join(d, "copy.yaml"))));
    opened.push(ws);
    expect(ws.files).toEqual(["Chart.yaml"]);
  });

  it("refuses a chart with a link outside", async () => {
    const src = chart((d) => {
      mkdirSync(join(d, "templates"));
      symlinkSync("/etc/hostname", join(d, "templates/x.yaml"));
    });
    await expect(copyWorkspace(src)).rejects.toThrow("chart contains out-of-bounds symlinks. file: templates/x.yaml");
  });
});
