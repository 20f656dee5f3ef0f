/**
 * OCI generator (docs/generators.md#oci): directories or files of an OCI artifact at a revision (a
 * tag, a digest or a semver constraint), with the Git generator's parameters, `values` and
 * `pathParamPrefix`, as Argo CD v3.6 reads them. Directory rules use Go `path.Match`; each file
 * rule is a doublestar glob over the artifact (includes first, then excludes remove their
 * matches); files are YAML or JSON, one object or a list. With `directories` and `files` both set,
 * directories win. A literal project's scoped `oci` repository Secrets apply when the project lends
 * them to this ApplicationSet; the matched files are bounded like the Git generator's.
 */
import type { OciGenerator } from "../api/index.js";
import { errorMessage } from "../errors.js";
import { compilePathMatch } from "../git/index.js";
import type { OciReader, OciReadOptions } from "../oci/index.js";
import { GeneratorError, GeneratorMessage, GeneratorWrap, wrapError } from "./errors.js";
import { checkFileSizes, compileRules, fileParams, parseParamFile, selected } from "./git.js";
import { appendValues, pathParams, requeueFrom } from "./params.js";
import { literalProject, sharedCredentialsAllowed } from "./shared-credentials.js";
import { templateMode, type Generator, type GeneratorContext, type ParamSet, type TemplateMode } from "./types.js";

/** How one generator run reads: the reader, and on whose behalf. */
interface Source {
  readonly oci: OciReader;
  readonly read: OciReadOptions;
}

async function directoryParams({ oci, read }: Source, spec: OciGenerator, mode: TemplateMode, ctx: GeneratorContext): Promise<ParamSet[]> {
  let all;
  try {
    all = await oci.directories(spec.repoURL, spec.revision, read);
  } catch (err) {
    throw wrapError("error getting directories from oci", wrapError("error retrieving OCI directories", err));
  }
  const rules = compileRules(spec.directories ?? [], compilePathMatch, ctx);
  const prefix = spec.pathParamPrefix ?? "";
  return all
    .filter((d) => selected(d, rules))
    .map((d) => appendValues(pathParams({ path: d, prefix }, mode.goTemplate), spec.values, mode, ctx.renderer));
}

/** The files the rules select: every include's matches, less every exclude's, sorted by path. */
async function selectFiles({ oci, read }: Source, spec: OciGenerator): Promise<Map<string, Buffer>> {
  const chosen = new Map<string, Buffer>();
  const rules = spec.files ?? [];
  try {
    for (const r of rules.filter((f) => f.exclude !== true)) {
      for (const [path, body] of await oci.files(spec.repoURL, spec.revision, r.path, read)) chosen.set(path, body);
    }
    for (const r of rules.filter((f) => f.exclude === true)) {
      for (const path of (await oci.files(spec.repoURL, spec.revision, r.path, read)).keys()) chosen.delete(path);
    }
  } catch (err) {
    throw wrapError("error retrieving OCI files", err);
  }
  return new Map([...chosen].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

async function filesParams({ oci, read }: Source, spec: OciGenerator, mode: TemplateMode, ctx: GeneratorContext): Promise<ParamSet[]> {
  const files = await selectFiles({ oci, read }, spec);
  const paths = [...files.keys()];
  checkFileSizes(
    paths.map((path) => ({ path })),
    [...files.values()],
    spec.repoURL,
    ctx,
  );
  const out: ParamSet[] = [];
  for (const [path, body] of files) {
    let objects;
    try {
      objects = parseParamFile(body.toString("utf8"));
    } catch (err) {
      throw new GeneratorError(
        `unable to process file '${path}' from repository '${spec.repoURL}': unable to parse file: ${errorMessage(err)}`,
      );
    }
    for (const o of objects) out.push(appendValues(fileParams(o, path, spec, mode), spec.values, mode, ctx.renderer));
  }
  return out;
}

/** The OCI generator. */
export const ociGenerator: Generator<OciGenerator> = {
  async generate(spec, appSet, ctx) {
    const hasDirs = (spec.directories ?? []).length > 0;
    if (!hasDirs && (spec.files ?? []).length === 0) throw new GeneratorError(GeneratorMessage.EmptyAppSet);
    const oci = ctx.ports.oci;
    if (oci === undefined) throw new GeneratorError(`${GeneratorWrap.Oci}: no OCI reader configured`);
    const project = literalProject(appSet);
    // A project's scoped repository Secrets only for an ApplicationSet the project takes Applications from.
    const scoped = project !== undefined && project !== "" && (await sharedCredentialsAllowed(appSet, ctx));
    const read: OciReadOptions = { access: scoped ? { project } : {}, signal: ctx.signal };
    const mode = templateMode(appSet);
    try {
      return hasDirs ? await directoryParams({ oci, read }, spec, mode, ctx) : await filesParams({ oci, read }, spec, mode, ctx);
    } catch (err) {
      throw wrapError(GeneratorWrap.Oci, err);
    }
  },
  requeueAfterMs: (spec, settings) => requeueFrom(spec.requeueAfterSeconds, settings.defaultRequeueAfterMs),
  template: (spec) => spec.template,
};
