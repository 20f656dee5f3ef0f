/**
 * The sync engine refuses, never skips, the signature checks an AppProject asks for: the legacy
 * `signatureKeys` and Argo CD v3.6's `sourceIntegrity` (Git policies with a GnuPG mode other than
 * `none`). Argo CD's repo-server verifies the GnuPG signature of each Git source's commit and the
 * application controller reports a failed check as a `ComparisonError`, which stops the sync; this
 * engine has no GnuPG verification, so an Application with a Git source in such a project gets a
 * `ComparisonError` saying so and is neither compared nor synced (docs/projects.md). As in Argo
 * CD, Helm repository and OCI sources are not subject to the checks. Pure.
 */
import { AppConditionType, type AppProject, type Application, type ApplicationSource } from "../api/index.js";

/** The condition of an Application whose project asks for signed sources. */
export function signatureNotSupportedMessage(project: string, field: "signatureKeys" | "sourceIntegrity"): string {
  return (
    `GPG signature verification is not supported by this sync engine: AppProject "${project}" requires signed Git sources ` +
    `(spec.${field}), so the Application is not synced; sync it with Argo CD's application controller, or remove the requirement`
  );
}

/** Which field of the project asks for signature checks, if any. */
function signatureField(project: AppProject): "signatureKeys" | "sourceIntegrity" | undefined {
  if ((project.spec.signatureKeys ?? []).length > 0) return "signatureKeys";
  const policies = project.spec.sourceIntegrity?.git.policies ?? [];
  return policies.some((p) => p.gpg.mode !== "none") ? "sourceIntegrity" : undefined;
}

/** Whether a source is read from Git (not a Helm repository chart, not OCI). */
function isGitSource(source: ApplicationSource): boolean {
  return (source.chart ?? "") === "" && !source.repoURL.startsWith("oci://");
}

/** The `ComparisonError` of an Application its project requires signed sources of, or undefined. */
export function signatureCondition(app: Application, project: AppProject): { type: string; message: string } | undefined {
  const field = signatureField(project);
  if (field === undefined) return undefined;
  const sources = [...(app.spec.source ? [app.spec.source] : []), ...(app.spec.sources ?? [])];
  if (!sources.some(isGitSource)) return undefined;
  return { type: AppConditionType.ComparisonError, message: signatureNotSupportedMessage(project.metadata.name ?? "", field) };
}
