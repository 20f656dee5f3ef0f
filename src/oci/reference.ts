/**
 * An OCI repository URL (`oci://registry[:port]/name`) split into registry and repository, as
 * Argo CD takes it (`oci://` trimmed, then parsed as an OCI reference). Errors carry its words. Pure.
 */
import { AppSetError } from "../errors.js";

/** The reason of a repository URL that is not an OCI reference. */
export const OCI_REFERENCE_REASON = "OciReferenceInvalid";

/** A repository URL that is not an OCI reference. */
export class OciReferenceError extends AppSetError {
  constructor(message: string) {
    super(OCI_REFERENCE_REASON, message);
  }
}

/** A registry and one repository of it. */
export interface OciRepository {
  /** `host` or `host:port`. */
  readonly registry: string;
  /** The repository's name (`org/app`). */
  readonly repository: string;
}

// The distribution spec's repository name: path components of lowercase letters and digits
// joined by `.`, `_`, `__` or runs of `-`, separated by `/`.
const COMPONENT = "[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*";
const REPOSITORY = new RegExp(`^${COMPONENT}(?:/${COMPONENT})*$`);
const REGISTRY = /^(?:[a-zA-Z0-9-]+(?:\.[a-zA-Z0-9-]+)*|\[[0-9a-fA-F:.]+\])(?::[0-9]+)?$/;

/** Whether a URL names an OCI repository (`oci://`). */
export function isOciURL(url: string): boolean {
  return /^oci:\/\//i.test(url);
}

/** Splits `oci://registry/name` (the scheme optional); fails as Argo CD's client does on a bad one. */
export function parseOciRepository(repoURL: string): OciRepository {
  const ref = repoURL.replace(/^oci:\/\//, "");
  const slash = ref.indexOf("/");
  const registry = slash < 0 ? ref : ref.slice(0, slash);
  const repository = slash < 0 ? "" : ref.slice(slash + 1);
  if (!REGISTRY.test(registry))
    throw new OciReferenceError(`failed to initialize repository: invalid reference: invalid registry "${registry}"`);
  if (!REPOSITORY.test(repository))
    throw new OciReferenceError(`failed to initialize repository: invalid reference: invalid repository "${repository}"`);
  return { registry, repository };
}

/** `registry/repository:tag` or `registry/repository@digest`, as error messages name a reference. */
export function referenceText(repo: OciRepository, reference: string): string {
  return `${repo.registry}/${repo.repository}${reference.includes(":") && reference.startsWith("sha") ? "@" : ":"}${reference}`;
}
