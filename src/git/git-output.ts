/**
 * What git prints, parsed: `ls-remote` refs and the commit a revision names among them, `ls-tree`
 * entries and `cat-file --batch` objects. Pure.
 */

/** A full commit SHA. */
export const SHA = /^[0-9a-f]{40}$/;

/** One entry of a commit's tree. */
export interface TreeEntry {
  /** Path from the repository root, `/`-separated. */
  readonly path: string;
  readonly type: "blob" | "tree" | "commit";
  /** Git file mode: 100644, 100755, 120000 (symlink), 040000, 160000 (submodule). */
  readonly mode: string;
  readonly oid: string;
  /** Where an entry inside a submodule comes from (its repository and commit); unset: the repository read. */
  readonly origin?: { readonly repoURL: string; readonly commit: string };
}

/** Parses `git ls-remote` output into ref → SHA. */
export function parseLsRemote(text: string): Map<string, string> {
  const refs = new Map<string, string>();
  for (const line of text.split("\n")) {
    const [sha, ref] = line.split("\t");
    if (sha !== undefined && ref !== undefined && SHA.test(sha)) refs.set(ref.trim(), sha);
  }
  return refs;
}

/**
 * Picks the commit a revision names among advertised refs: "" and HEAD → HEAD; then a branch, an
 * (annotated tags peeled) tag, or a full ref name.
 */
export function pickRef(refs: ReadonlyMap<string, string>, revision: string): string | undefined {
  if (revision === "" || revision === "HEAD") return refs.get("HEAD");
  const candidates = [`refs/heads/${revision}`, `refs/tags/${revision}^{}`, `refs/tags/${revision}`, `${revision}^{}`, revision];
  for (const c of candidates) {
    const sha = refs.get(c);
    if (sha !== undefined) return sha;
  }
  return undefined;
}

/** Parses `git ls-tree -r -t -z` output. */
export function parseLsTree(out: Buffer): TreeEntry[] {
  const entries: TreeEntry[] = [];
  for (const rec of out.toString("utf8").split("\u0000")) {
    const tab = rec.indexOf("\t");
    if (tab < 0) continue;
    const [mode = "", type = "", oid = ""] = rec.slice(0, tab).split(" ");
    if (type === "blob" || type === "tree" || type === "commit") entries.push({ path: rec.slice(tab + 1), type, mode, oid });
  }
  return entries;
}

/** Parses `git cat-file --batch` output: `<oid> <type> <size>\n<content>\n` per object. */
export function parseBatch(out: Buffer): Map<string, Buffer> {
  const res = new Map<string, Buffer>();
  let pos = 0;
  while (pos < out.length) {
    const nl = out.indexOf(0x0a, pos);
    if (nl < 0) break;
    const [oid = "", type = "", size = ""] = out.subarray(pos, nl).toString("utf8").split(" ");
    if (type === "missing" || size === "") {
      pos = nl + 1;
      continue;
    }
    const n = Number.parseInt(size, 10);
    res.set(oid, Buffer.from(out.subarray(nl + 1, nl + 1 + n)));
    pos = nl + 1 + n + 1;
  }
  return res;
}
