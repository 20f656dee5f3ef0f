/**
 * The files of an OCI artifact's content layer, read in memory (docs/generators.md#oci): a tar
 * stream (already decompressed) becomes a tree of directories, files and symlinks, as Argo CD's
 * repo-server extracts it (`files.Untar`): names are cleaned and rooted, a path or link target that
 * leaves the artifact, or a path under a link, fails the layer (an absolute link target is joined to
 * the link's directory, as Go's `filepath.Join` joins it); a malformed header fails it too;
 * entries of other types (hard links, devices) are left out. Nothing is written to disk, so no
 * entry can reach outside.
 *
 * What the generator reads from the tree: {@link artifactDirectories} (a directory walk as
 * `filepath.WalkDir` makes it, hidden directories left out) and {@link artifactFiles} (a doublestar
 * glob over the tree, links followed inside the artifact, directories left out). Pure.
 */
import { posix } from "node:path";
import { AppSetError } from "../errors.js";
import { bytesText } from "../response-limit.js";
import { comparePaths, compileDoublestar } from "../git/index.js";

/** The reason of every error reading a layer. */
export const OCI_LAYER_REASON = "OciLayerInvalid";

/** A layer that cannot be read: an unsafe path, a malformed archive, or more bytes than allowed. */
export class OciLayerError extends AppSetError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(OCI_LAYER_REASON, message, options);
  }
}

/** The files of one artifact. */
export interface ArtifactTree {
  /** Every directory, explicit or implied by a deeper entry, relative to the root ("." left out). */
  readonly dirs: ReadonlySet<string>;
  readonly files: ReadonlyMap<string, Buffer>;
  /** Each symlink and the root-relative path it points at (inside the artifact). */
  readonly links: ReadonlyMap<string, string>;
}

/** A tar name as Argo CD cleans it: `filepath.Clean`, leading `/` dropped; "" for the root. */
export function cleanEntryName(name: string): string {
  const cleaned = posix.normalize(name).replace(/^\/+/, "");
  return cleaned === "." || cleaned === "./" ? "" : cleaned.replace(/\/+$/, "");
}

function leavesRoot(path: string): boolean {
  return path === ".." || path.startsWith("../");
}

/** Every proper ancestor of a relative path, outermost first (`a/b/c` → `a`, `a/b`). */
function ancestors(path: string): string[] {
  const parts = path.split("/");
  return parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join("/"));
}

/** A mutable tree while the layer is read. */
class TreeBuilder {
  readonly dirs = new Set<string>();
  readonly files = new Map<string, Buffer>();
  readonly links = new Map<string, string>();

  /** Fails when the path leaves the root or passes through a link (the kernel would follow it). */
  place(name: string): void {
    if (leavesRoot(name)) throw new OciLayerError(`path ${JSON.stringify(name)} escapes from the artifact`);
    for (const dir of ancestors(name)) {
      if (this.links.has(dir)) throw new OciLayerError(`path ${JSON.stringify(name)} passes through the symlink ${JSON.stringify(dir)}`);
      this.dirs.add(dir);
    }
  }

  link(name: string, target: string): void {
    this.place(name);
    const resolved = posix.normalize(posix.join(posix.dirname(name), target.replace(/^\/+/, "")));
    if (leavesRoot(resolved)) throw new OciLayerError(`symlink ${JSON.stringify(name)} points outside the artifact: ${target}`);
    this.links.set(name, resolved === "." ? "" : resolved);
  }
}

/** What reading one layer may take. */
export interface LayerLimits {
  /** The most bytes the decompressed layer may hold. */
  readonly maxBytes: number;
  /** The setting that raises it (named in the error). */
  readonly setting: string;
}

/** The chunks of `input`, failing once more than `limits.maxBytes` have passed. */
async function* bounded(input: AsyncIterable<Uint8Array>, limits: LayerLimits): AsyncIterable<Uint8Array> {
  let seen = 0;
  for await (const chunk of input) {
    seen += chunk.length;
    if (seen > limits.maxBytes)
      throw new OciLayerError(
        `the artifact's content layer holds more than ${bytesText(limits.maxBytes)} unpacked; raise ${limits.setting} to read it`,
      );
    yield chunk;
  }
}

/** Reads a decompressed tar stream into a tree (see the module comment). */
export async function readArtifactTree(tarStream: AsyncIterable<Uint8Array>, limits: LayerLimits): Promise<ArtifactTree> {
  // Loaded on first use: a controller without OCI generators or sources never needs it.
  const { entries } = await import("tar");
  const tree = new TreeBuilder();
  try {
    for await (const entry of entries(bounded(tarStream, limits), { strict: true })) {
      const name = cleanEntryName(entry.path);
      if (name === "") continue;
      switch (entry.type) {
        case "Directory":
          tree.place(name);
          tree.dirs.add(name);
          break;
        case "File":
        case "OldFile":
        case "ContiguousFile":
          tree.place(name);
          tree.files.set(name, Buffer.from(await entry.bytes()));
          break;
        case "SymbolicLink":
          tree.link(name, posix.normalize(entry.linkpath ?? ""));
          break;
        default:
          break;
      }
    }
  } catch (err) {
    if (err instanceof OciLayerError) throw err;
    throw new OciLayerError(`error while iterating on tar reader: ${(err as Error).message}`, { cause: err });
  }
  return tree;
}

/**
 * The artifact's directories in walk order (Argo CD's `walkDirectoryTree`): links to directories
 * are not walked; a directory whose name starts with `.` is left out with everything below it
 * unless `includeHidden`.
 */
export function artifactDirectories(tree: ArtifactTree, includeHidden = false): string[] {
  const visible = (d: string): boolean => includeHidden || !d.split("/").some((seg) => seg.startsWith("."));
  return [...tree.dirs].filter(visible).sort(comparePaths);
}

/** Where a path lands once links are followed: a file's path, a directory's, or undefined (dangling). */
function resolveLinks(tree: ArtifactTree, path: string): string | undefined {
  let current = path;
  // Each hop follows one link; a chain longer than the links there are is a loop.
  for (let hops = 0; hops <= tree.links.size; hops++) {
    const next = tree.links.get(current);
    if (next === undefined) return current;
    current = next;
  }
  return undefined;
}

/**
 * The files matching a doublestar pattern (`.` means every file), keyed by path (Argo CD's
 * `GetOciFiles`): a link that resolves to a file inside the artifact is read through; a directory,
 * a dangling link or a loop is left out.
 */
export function artifactFiles(tree: ArtifactTree, pattern: string): Map<string, Buffer> {
  const match = compileDoublestar(pattern === "" || pattern === "." ? "**" : pattern);
  const out = new Map<string, Buffer>();
  const candidates = [...tree.files.keys(), ...tree.links.keys()].filter(match).sort();
  for (const path of candidates) {
    const target = resolveLinks(tree, path);
    const content = target === undefined ? undefined : tree.files.get(target);
    if (content !== undefined) out.set(path, content);
  }
  return out;
}
