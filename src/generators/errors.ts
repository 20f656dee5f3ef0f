/**
 * The generators' error type and Argo CD's error texts (docs/troubleshooting.md#common-errors).
 * Every failure to produce parameters is a {@link GeneratorError} with reason
 * `ApplicationGenerationFromParamsError`; the message is Argo CD's, including the wrapping prefixes
 * its callers add, so the condition message reads the same.
 */
import { Reason } from "../api/index.js";
import { AppSetError, errorMessage } from "../errors.js";
import { bytesText } from "../response-limit.js";

/** A generator could not do its work. Never replaced by an empty result. */
export class GeneratorError extends AppSetError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(Reason.ApplicationGenerationFromParamsError, message, options);
  }
}

/** Argo CD's `fmt.Errorf(prefix + ": %w", err)`: a GeneratorError whose message wraps the cause's. */
export function wrapError(prefix: string, cause: unknown): GeneratorError {
  return new GeneratorError(`${prefix}: ${errorMessage(cause)}`, { cause });
}

/** Runs `fn`; a failure is rethrown wrapped with `prefix`. */
export async function wrapping<T>(prefix: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw wrapError(prefix, err);
  }
}

/** Argo CD's fixed messages. */
export const GeneratorMessage = {
  EmptyAppSet: "ApplicationSet is empty",
  MatrixLessThanTwo: "found less than two generators, Matrix support only two",
  MatrixMoreThanTwo: "found more than two generators, Matrix support only two",
  MoreThanOneInner: "found more than one generator in matrix.Generators",
  ChildNoParams: "child generator generated no parameters",
  MergeLessThanTwo: "found less than two generators, Merge requires two or more",
  NoMergeKeys: "no merge keys were specified, Merge requires at least one",
  NonUniqueParamSets: "the parameters from a generator were not unique by the given mergeKeys, Merge requires all param sets to be unique",
  NoScmProvider: "no SCM provider implementation configured",
  NoPullRequestProvider: "no Pull Request provider implementation configured",
  BaseUrlNotFound: "baseUrl not found in ConfigMap",
  TokenNotFound: "token not found in ConfigMap",
  CdrBadApiVersion: "there is a problem with the apiVersion, kind or resourceName provided",
  CdrBadDefinition: "there is a problem with the definition of the ClusterDecisionResource generator",
  CdrNotFound: "no clusterDecisionResources found",
} as const;

/** Our own messages, where Argo CD has none. */
/**
 * An entry that runs no generator this controller knows, or names one it does not (an `oci`
 * generator of Argo CD v3.6, a misspelt key): Argo CD's warning text, then what happens instead of
 * Argo CD's skip, which would delete every Application the entry made.
 */
export function unrecognizedGenerators(appSet: string, index: number, keys: readonly string[]): string {
  const named = keys.length > 0 ? `: ${keys.join(", ")}` : "";
  return `ApplicationSet ${appSet} contains unrecognized generators${named} (spec.generators[${String(index)}]); nothing is generated, changed or deleted until the entry names only generators this controller runs`;
}

export const BudgetMessage = {
  tooManyParameterSets: (max: number): string =>
    `the generators produce more than ${String(max)} parameter sets, the most one ApplicationSet may have; split it, or narrow its generators`,
  gitFileTooLarge: (o: { path: string; repoURL: string; size: number; max: number }): string =>
    `file '${o.path}' in repository '${o.repoURL}' has ${String(o.size)} bytes, more than the ${bytesText(o.max)} a Git files generator reads from one file; raise --git-file-max-bytes to read it`,
  gitFilesTooLarge: (o: { repoURL: string; max: number }): string =>
    `the files matched in repository '${o.repoURL}' hold more than ${bytesText(o.max)} in all, the most a Git files generator reads in one pass; narrow files[].path, or raise --git-files-max-bytes`,
} as const;

/** Wrapping prefixes Argo CD adds (each followed by ": <cause>"). */
export const GeneratorWrap = {
  Git: "error generating params from git",
  Oci: "error generating params from oci",
  ClusterSecrets: "error getting cluster secrets",
  Selector: "error parsing label selector",
  ChildError: "child generator returned an error on parameter generation",
  MatrixFirst: "error failed to get params for first generator in matrix generator",
  MatrixSecond: "failed to get params for second generator in the matrix generator",
  MatrixCombine: "failed to combine string maps with merging params for the matrix generator",
  MergeChildren: "error getting param sets from generators",
  MergeByKey: "error getting param sets by merge key",
  Values: "failed to replace templated string",
  PluginParams: "error listing params",
  PluginClient: "error getting plugin from generator",
} as const;

/** `"found duplicate key %s with different value, a: %s ,b: %s"`. */
export function duplicateKeyMessage(key: string, a: string, b: string): string {
  return `found duplicate key ${key} with different value, a: ${a} ,b: ${b}`;
}
