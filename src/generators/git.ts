/**
 * Git generator (docs/generators.md#git-directories, docs/generators.md#git-files): directories or
 * files of a repository at a revision. The revision is resolved to a commit first; everything else
 * is read at that commit through the {@link GitReader} (which caches by commit). Directory rules
 * use Go `path.Match`; file rules use git pathspecs, or doublestar with the new globbing. Files are
 * YAML or JSON: one object, or a list of objects. A literal spec-level project is checked first and
 * reads on its behalf (its scoped repository credentials apply); a templated one reads with global
 * credentials only. The matched files are bounded in size: one file by `gitFileMaxBytes`, all of
 * them in one pass by `gitFilesMaxBytes`; past either the generator fails (never "no results").
 */
import { yaml } from "../yaml.js";
import { isRecord, type AppProject, type GitGenerator } from "../api/index.js";
import { errorMessage } from "../errors.js";
import {
  BadPatternError,
  compileDoublestar,
  compilePathMatch,
  compilePathspec,
  comparePaths,
  type GitReader,
  type RepoAccess,
  type TreeEntry,
} from "../git/index.js";
import { BudgetMessage, GeneratorError, GeneratorMessage, GeneratorWrap, wrapError } from "./errors.js";
import { revisionError } from "./git-wording.js";
import { lendsSharedCredentials, literalProject } from "./shared-credentials.js";
import { notObjectsError, yamlSyntaxError } from "../api/go-decode.js";
import { appendValues, requeueFrom, basename, cloneJson, dirname, flattenParams, pathParams } from "./params.js";
import { templateMode, type Generator, type GeneratorContext, type ParamSet, type TemplateMode } from "./types.js";

type Rule = { readonly path: string; readonly exclude?: boolean | undefined };
type Matcher = (path: string) => boolean;

export function compileRules(
  rules: readonly Rule[],
  compile: (p: string) => Matcher,
  ctx: GeneratorContext,
): { include: Matcher[]; exclude: Matcher[] } {
  const include: Matcher[] = [];
  const exclude: Matcher[] = [];
  for (const r of rules) {
    try {
      (r.exclude === true ? exclude : include).push(compile(r.path));
    } catch (err) {
      if (!(err instanceof BadPatternError)) throw err;
      ctx.logger?.warn({ pattern: r.path }, "skipping a Git generator path with a malformed pattern");
    }
  }
  return { include, exclude };
}

export function selected(path: string, rules: { include: Matcher[]; exclude: Matcher[] }): boolean {
  return rules.include.some((m) => m(path)) && !rules.exclude.some((m) => m(path));
}

/**
 * Directories of the tree, minus dot-directories and everything below them. A submodule that is
 * not expanded counts as the empty directory a checkout without submodules leaves.
 */
export function treeDirectories(entries: readonly TreeEntry[]): string[] {
  return entries
    .filter((e) => (e.type === "tree" || e.type === "commit") && !e.path.split("/").some((seg) => seg.startsWith(".")))
    .map((e) => e.path)
    .sort(comparePaths);
}

/** The Git reader and on whose behalf it reads (the literal project, if any). */
interface Repo {
  readonly git: GitReader;
  readonly access: RepoAccess;
}

async function readTree(
  { git, access }: Repo,
  spec: GitGenerator,
  ctx: GeneratorContext,
): Promise<{ commit: string; entries: readonly TreeEntry[] }> {
  let commit;
  if (ctx.freshRevisions === true) git.invalidate?.(spec.repoURL);
  try {
    commit = await git.resolveRevision(spec.repoURL, spec.revision, ctx.signal, access);
  } catch (err) {
    throw new Error(revisionError(err, spec.revision), { cause: err });
  }
  return { commit, entries: await git.listTree(spec.repoURL, commit, ctx.signal, access) };
}

async function directoryParams(repo: Repo, spec: GitGenerator, mode: TemplateMode, ctx: GeneratorContext): Promise<ParamSet[]> {
  let tree;
  try {
    tree = await readTree(repo, spec, ctx);
  } catch (err) {
    throw wrapError("error getting directories from git", wrapError("error retrieving Git Directories", err));
  }
  const rules = compileRules(spec.directories ?? [], compilePathMatch, ctx);
  const prefix = spec.pathParamPrefix ?? "";
  return treeDirectories(tree.entries)
    .filter((d) => selected(d, rules))
    .map((d) => appendValues(pathParams({ path: d, prefix }, mode.goTemplate), spec.values, mode, ctx.renderer));
}

/** Resolves a symlink inside the tree to the blob it points at; undefined when it leaves the repository. */
function followLink(entry: TreeEntry, target: string, blobs: ReadonlyMap<string, TreeEntry>): TreeEntry | undefined {
  if (target.startsWith("/")) return undefined;
  const parts = dirname(entry.path) === "." ? [] : dirname(entry.path).split("/");
  for (const seg of target.split("/")) {
    if (seg === "..") {
      if (parts.length === 0) return undefined;
      parts.pop();
    } else if (seg !== "." && seg !== "") parts.push(seg);
  }
  const hit = blobs.get(parts.join("/"));
  return hit === undefined ? undefined : { ...hit, path: entry.path };
}

/** The files selected by the rules, sorted by path, symlinks resolved (or dropped when they leave the tree). */
async function selectFiles(repo: Repo, spec: GitGenerator, ctx: GeneratorContext): Promise<{ commit: string; files: TreeEntry[] }> {
  const tree = await readTree(repo, spec, ctx);
  const compile = ctx.settings.newGitFileGlobbing ? compileDoublestar : compilePathspec;
  const rules = compileRules(spec.files ?? [], compile, ctx);
  // Without the new globbing Argo CD lists files with `git ls-files`, which stops at submodules.
  const listed = ctx.settings.newGitFileGlobbing ? tree.entries : tree.entries.filter((e) => e.origin === undefined);
  const chosen = listed
    .filter((e) => e.type === "blob" && selected(e.path, rules))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const links = chosen.filter((e) => e.mode === "120000");
  if (links.length === 0) return { commit: tree.commit, files: chosen };
  const blobs = new Map(tree.entries.filter((e) => e.type === "blob" && e.mode !== "120000").map((e) => [e.path, e]));
  const targets = await repo.git.readBlobs(spec.repoURL, tree.commit, links, ctx.signal, repo.access);
  const resolved = new Map(links.map((l, i) => [l.path, followLink(l, targets[i]!.toString("utf8"), blobs)]));
  const files = chosen.flatMap((e) => (e.mode === "120000" ? (resolved.get(e.path) ?? []) : [e]));
  return { commit: tree.commit, files };
}

/** Parses a file as one object (empty → {}) or a list of objects (a null item is an empty object, as in Go). */
export function parseParamFile(text: string): Record<string, unknown>[] {
  const docs = yaml().parseAllDocuments(text, { version: "1.1" });
  const first = Array.isArray(docs) ? docs[0] : docs;
  if (first === undefined) return [{}];
  if (first.errors.length > 0) throw new Error(yamlSyntaxError(first.errors[0]));
  const value: unknown = first.toJS({ maxAliasCount: 1000 });
  if (value === null || value === undefined) return [{}];
  if (isRecord(value)) return [value];
  if (!Array.isArray(value)) throw new Error(notObjectsError(value));
  return value.map((item: unknown, i) => {
    if (item === null) return {};
    if (!isRecord(item)) throw new Error(notObjectsError(item, i));
    return item;
  });
}

/** The parameters of one object of a file (its keys, flattened without goTemplate) and the file's path. */
export function fileParams(
  obj: Record<string, unknown>,
  path: string,
  spec: Pick<GitGenerator, "pathParamPrefix">,
  mode: TemplateMode,
): ParamSet {
  const info = { path: dirname(path), filename: basename(path), prefix: spec.pathParamPrefix ?? "" };
  const base = mode.goTemplate ? cloneJson(obj) : flattenParams(obj);
  return { ...base, ...pathParams(info, mode.goTemplate) };
}

/** Fails when one matched file, or all of them together, are over the generator's byte limits. */
export function checkFileSizes(
  files: readonly { readonly path: string }[],
  contents: readonly Buffer[],
  repoURL: string,
  ctx: Pick<GeneratorContext, "settings">,
): void {
  const { gitFileMaxBytes, gitFilesMaxBytes } = ctx.settings;
  let total = 0;
  files.forEach((f, i) => {
    const size = contents[i]?.length ?? 0;
    if (size > gitFileMaxBytes)
      throw new GeneratorError(BudgetMessage.gitFileTooLarge({ path: f.path, repoURL, size, max: gitFileMaxBytes }));
    total += size;
    if (total > gitFilesMaxBytes) throw new GeneratorError(BudgetMessage.gitFilesTooLarge({ repoURL, max: gitFilesMaxBytes }));
  });
}

async function filesParams(repo: Repo, spec: GitGenerator, mode: TemplateMode, ctx: GeneratorContext): Promise<ParamSet[]> {
  let selection;
  let contents;
  try {
    selection = await selectFiles(repo, spec, ctx);
    contents = await repo.git.readBlobs(spec.repoURL, selection.commit, selection.files, ctx.signal, repo.access);
  } catch (err) {
    throw wrapError("error retrieving Git files", err);
  }
  checkFileSizes(selection.files, contents, spec.repoURL, ctx);
  const out: ParamSet[] = [];
  selection.files.forEach((f, i) => {
    let objects;
    try {
      objects = parseParamFile(contents[i]!.toString("utf8"));
    } catch (err) {
      throw new GeneratorError(
        `unable to process file '${f.path}' from repository '${spec.repoURL}': unable to parse file: ${errorMessage(err)}`,
      );
    }
    for (const o of objects) out.push(appendValues(fileParams(o, f.path, spec, mode), spec.values, mode, ctx.renderer));
  });
  return out;
}

/**
 * Checks that the literal project exists in the controller namespace, as Argo CD does before any
 * repository access: `error getting project <name>: <cause>`; returns it. Without a `projects` port
 * (an offline preview without objects) the check is skipped.
 */
async function checkProject(project: string, ctx: GeneratorContext): Promise<AppProject | undefined> {
  const projects = ctx.ports.projects;
  if (projects === undefined) return undefined;
  let found;
  try {
    found = await projects.getAppProject(project, ctx.signal);
  } catch (err) {
    throw new GeneratorError(`error getting project ${project}: ${errorMessage(err)}`, { cause: err });
  }
  if (found === undefined) throw new GeneratorError(`error getting project ${project}: appprojects.argoproj.io "${project}" not found`);
  return found;
}

/** The Git generator. */
export const gitGenerator: Generator<GitGenerator> = {
  async generate(spec, appSet, ctx) {
    // As in Argo CD: the project check comes first and its error is not wrapped.
    const project = literalProject(appSet);
    const found = project === undefined ? undefined : await checkProject(project, ctx);
    const hasDirs = (spec.directories ?? []).length > 0;
    if (!hasDirs && (spec.files ?? []).length === 0) throw new GeneratorError(GeneratorMessage.EmptyAppSet);
    const git = ctx.ports.git;
    if (git === undefined) throw new GeneratorError(`${GeneratorWrap.Git}: no Git reader configured`);
    const mode = templateMode(appSet);
    try {
      // A project's scoped repository Secrets only for an ApplicationSet the project takes Applications from.
      const scoped = project !== undefined && lendsSharedCredentials(appSet, found, ctx.ports.secrets?.namespace);
      const repo: Repo = { git, access: scoped ? { project } : {} };
      return hasDirs ? await directoryParams(repo, spec, mode, ctx) : await filesParams(repo, spec, mode, ctx);
    } catch (err) {
      throw wrapError(GeneratorWrap.Git, err);
    }
  },
  requeueAfterMs: (spec, settings) => requeueFrom(spec.requeueAfterSeconds, settings.defaultRequeueAfterMs),
  template: (spec) => spec.template,
};
