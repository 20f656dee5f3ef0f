import { ScmApiError } from "../types.js";

/** An AWS API answered with an error (`code` is the exception name, e.g. `RepositoryDoesNotExistException`). */
export class AwsApiError extends ScmApiError {
  constructor(
    status: number,
    readonly code: string,
    message: string,
  ) {
    super(status, message === "" ? code : `${code}: ${message}`);
  }
}
