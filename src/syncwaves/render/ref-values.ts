/**
 * Helm value files and file parameters that name another source's repository (`$<ref>/<path>`)
 * in a multi-source Application: each is resolved inside the referenced repository at its
 * resolved commit (never outside it: sources.ts), its files are read through the Git reader and
 * written beside the render, and the render is given their paths. Globs expand over the
 * referenced repository's files; a missing file is dropped with `ignoreMissingValueFiles`, else
 * left for Helm to report.
 *
 * I/O boundary: the injected GitReader and the render's scratch directory.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { HelmSource } from "../../api/index.js";
import { AppSetError } from "../../errors.js";
import type { GitReader, TreeEntry } from "../../git/index.js";
import { MANIFEST_ERROR } from "../manifests.js";
import { refNameOf, refValueFile } from "../sources.js";
import type { EnvEntry } from "./envsubst.js";
import { expandGlob, isGlob } from "./repo-paths.js";
import { insidePath } from "./workspace.js";

/** A referenced source's repository at its resolved commit. */
export interface RefRepo {
  readonly repoURL: string;
  readonly commit: string;
  readonly tree: readonly TreeEntry[];
}

/** The ref sources' repositories and commits a render read (part of what it renders to). */
export function refCommits(refs: ReadonlyMap<string, RefRepo> | undefined): [string, string, string][] {
  return [...(refs ?? new Map<string, RefRepo>())].map(([name, r]) => [name, r.repoURL, r.commit]);
}

/** What {@link writeRefValueFiles} needs. */
export interface RefValuesInput {
  readonly git: GitReader;
  /** `$<ref>` → its repository. */
  readonly refs: ReadonlyMap<string, RefRepo>;
  readonly helm: HelmSource | undefined;
  readonly env: readonly EnvEntry[];
  readonly schemes?: readonly string[] | undefined;
  /** Where the files are written (the render's scratch directory). */
  readonly dir: string;
  readonly signal?: AbortSignal | undefined;
}

/** A referenced path's place: URLs pass through, files are in the repository (relative to its root). */
type Planned = { readonly raw: string; readonly urls: string[]; readonly files: string[]; readonly ref: string };

/** Argo CD's frame around a value file it cannot resolve. */
function resolveError(err: unknown): AppSetError {
  const message = err instanceof Error ? err.message : String(err);
  return new AppSetError(MANIFEST_ERROR, `error resolving helm value files: error resolving value file path: ${message}`);
}

/** Where each referenced path lands in its repository (pure). */
export function planRefFiles(
  raws: readonly string[],
  trees: ReadonlyMap<string, readonly string[]>,
  opts: { env: readonly EnvEntry[]; schemes?: readonly string[] | undefined; ignoreMissing: boolean },
): Planned[] {
  const out: Planned[] = [];
  for (const raw of raws) {
    const ref = refNameOf(raw);
    const files = ref === undefined ? undefined : trees.get(ref);
    if (ref === undefined || files === undefined) continue;
    let p: { file: string } | { url: string };
    try {
      p = refValueFile(raw, opts.env, opts.schemes);
    } catch (err) {
      throw resolveError(err);
    }
    if ("url" in p) {
      out.push({ raw, ref, urls: [p.url], files: [] });
    } else if (isGlob(p.file)) {
      const matches = expandGlob(p.file, files);
      if (matches.length === 0 && !opts.ignoreMissing) throw new AppSetError(MANIFEST_ERROR, `values file glob "${raw}" matched no files`);
      out.push({ raw, ref, urls: [], files: matches });
    } else {
      const missing = !files.includes(p.file);
      out.push({ raw, ref, urls: [], files: missing && opts.ignoreMissing ? [] : [p.file] });
    }
  }
  return out;
}

/** The referenced paths of a Helm source → the absolute paths (or URLs) to give Helm, the files written under `dir`. */
export async function writeRefValueFiles(i: RefValuesInput): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  if (i.refs.size === 0) return out;
  const raws = [...(i.helm?.valueFiles ?? []), ...(i.helm?.fileParameters ?? []).map((p) => p.path ?? "")];
  const trees = new Map([...i.refs].map(([k, r]) => [k, r.tree.filter((e) => e.type === "blob").map((e) => e.path)]));
  const plans = planRefFiles(raws, trees, { env: i.env, schemes: i.schemes, ignoreMissing: i.helm?.ignoreMissingValueFiles === true });
  for (const [index, [ref, repo]] of [...i.refs].entries()) {
    const wanted = new Set(plans.filter((p) => p.ref === ref).flatMap((p) => p.files));
    const entries = repo.tree.filter((e) => e.type === "blob" && wanted.has(e.path));
    const blobs = await i.git.readBlobs(repo.repoURL, repo.commit, entries, i.signal);
    const base = join(i.dir, "refs", String(index));
    await mkdir(base, { recursive: true });
    for (const [n, e] of entries.entries()) {
      const file = insidePath(base, e.path);
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, blobs[n] ?? Buffer.alloc(0));
    }
    for (const p of plans.filter((x) => x.ref === ref)) out.set(p.raw, [...p.urls, ...p.files.map((f) => join(base, f))]);
  }
  return out;
}
