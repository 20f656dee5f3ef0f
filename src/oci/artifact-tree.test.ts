import { describe, expect, it } from "vitest";
import { tarBytes, type TarEntry } from "../../test/support/tar-bytes.js";
import { artifactDirectories, artifactFiles, cleanEntryName, OciLayerError, readArtifactTree } from "./artifact-tree.js";

const LIMITS = { maxBytes: 1 << 20, setting: "--oci-artifact-max-bytes" };

function chunks(bytes: Buffer, size = 700): AsyncIterable<Uint8Array> {
  return (async function* () {
    await Promise.resolve();
    for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
  })();
}

const read = (entries: readonly TarEntry[], limits = LIMITS) => readArtifactTree(chunks(tarBytes(entries)), limits);

describe("cleanEntryName", () => {
  it.each([
    ["./apps/a/", "apps/a"],
    ["/abs/file", "abs/file"],
    ["a//b/./c", "a/b/c"],
    ["./", ""],
    [".", ""],
    ["a/../b", "b"],
    ["../up", "../up"],
  ])("%s → %s", (name, want) => {
    expect(cleanEntryName(name)).toBe(want);
  });
});

describe("readArtifactTree", () => {
  it("keeps directories (explicit and implied), files and links", async () => {
    const tree = await read([
      { name: "./", dir: true },
      { name: "./apps/", dir: true },
      { name: "./apps/a/config.json", body: '{"a":1}' },
      { name: "./apps/b/.hidden/x.yaml", body: "x: 1" },
      { name: "./apps/c", link: "a" },
      { name: "./hard", hardlink: "apps/a/config.json" },
    ]);
    expect([...tree.dirs].sort()).toEqual(["apps", "apps/a", "apps/b", "apps/b/.hidden"]);
    expect([...tree.files.keys()].sort()).toEqual(["apps/a/config.json", "apps/b/.hidden/x.yaml"]);
    expect(Object.fromEntries(tree.links)).toEqual({ "apps/c": "apps/a" });
  });

  it.each<{ name: string; entries: TarEntry[]; error: RegExp }>([
    { name: "a file above the root", entries: [{ name: "../escape", body: "x" }], error: /escapes from the artifact/ },
    { name: "a directory above the root", entries: [{ name: "a/../../up/", dir: true }], error: /escapes from the artifact/ },
    { name: "a link leaving the root", entries: [{ name: "a/link", link: "../../etc/passwd" }], error: /points outside the artifact/ },
    { name: "a link climbing back out", entries: [{ name: "a/link", link: "b/../../../etc" }], error: /points outside the artifact/ },
    {
      name: "a file under a link",
      entries: [
        { name: "up", link: "." },
        { name: "up/file", body: "x" },
      ],
      error: /passes through the symlink "up"/,
    },
  ])("refuses $name", async ({ entries, error }) => {
    const err = await read(entries).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OciLayerError);
    expect((err as Error).message).toMatch(error);
  });

  it("fails past the byte limit instead of reading on", async () => {
    const big = "x".repeat(4096);
    const err = await read(
      [
        { name: "a", body: big },
        { name: "b", body: big },
      ],
      { maxBytes: 6000, setting: "--oci-artifact-max-bytes" },
    ).catch((e: unknown) => e);
    expect((err as Error).message).toBe(
      "the artifact's content layer holds more than 6000 bytes unpacked; raise --oci-artifact-max-bytes to read it",
    );
  });

  it("joins an absolute link target to the link's directory, as Argo CD does", async () => {
    const tree = await read([{ name: "a/link", link: "/etc/passwd" }]);
    expect(tree.links.get("a/link")).toBe("a/etc/passwd");
  });

  it("wraps a malformed archive", async () => {
    const bytes = tarBytes([{ name: "a", body: "hello" }]);
    bytes.write("garbage!", 148); // the checksum no longer matches
    const err = await readArtifactTree(chunks(bytes), LIMITS).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OciLayerError);
  });
});

describe("artifactDirectories", () => {
  it("walks in directory order and leaves hidden directories out unless asked", async () => {
    const tree = await read([
      { name: "b/x/", dir: true },
      { name: "a-b/", dir: true },
      { name: "a/z/", dir: true },
      { name: ".git/objects/", dir: true },
      { name: "a/.cfg/in/", dir: true },
      { name: "linkdir", link: "a" },
    ]);
    expect(artifactDirectories(tree)).toEqual(["a", "a/z", "a-b", "b", "b/x"]);
    expect(artifactDirectories(tree, true)).toEqual([".git", ".git/objects", "a", "a/.cfg", "a/.cfg/in", "a/z", "a-b", "b", "b/x"]);
  });
});

describe("artifactFiles", () => {
  const entries: TarEntry[] = [
    { name: "apps/a/config.json", body: "A" },
    { name: "apps/b/config.json", body: "B" },
    { name: "apps/.c/config.json", body: "C" },
    { name: "apps/d/config.json", link: "../a/config.json" },
    { name: "apps/e/config.json", link: "../missing.json" },
    { name: "apps/f/config.json", link: "../f2/config.json" },
    { name: "apps/f2/config.json", link: "../f/config.json" },
    { name: "top.yaml", body: "T" },
  ];

  it.each([
    ["apps/*/config.json", ["apps/.c/config.json", "apps/a/config.json", "apps/b/config.json", "apps/d/config.json"]],
    ["**/config.json", ["apps/.c/config.json", "apps/a/config.json", "apps/b/config.json", "apps/d/config.json"]],
    [".", ["apps/.c/config.json", "apps/a/config.json", "apps/b/config.json", "apps/d/config.json", "top.yaml"]],
    ["apps", []],
    ["*.yaml", ["top.yaml"]],
  ])("%s", async (pattern, want) => {
    const files = artifactFiles(await read(entries), pattern);
    expect([...files.keys()]).toEqual(want);
  });

  it("reads a link through to its file", async () => {
    const files = artifactFiles(await read(entries), "apps/d/config.json");
    expect(files.get("apps/d/config.json")?.toString()).toBe("A");
  });
});
