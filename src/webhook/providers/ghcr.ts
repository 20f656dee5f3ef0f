/**
 * GitHub's container registry (ghcr.io): `X-GitHub-Event: package`, signed like GitHub's other
 * events (`X-Hub-Signature-256` under `webhook.github.secret`). A `published` container package
 * version with a tag refreshes the OCI generators of `oci://ghcr.io/<owner>/<package>`; any other
 * action, package type, or a version without a tag is acknowledged and ignored, as Argo CD does.
 */
import { z } from "zod";
import type { WebhookEvent } from "../types.js";
import { decodeJson, type ProviderSpec } from "./common.js";
import { github } from "./github.js";

// Absent fields read as Go's zero values ("").
const text = z
  .string()
  .nullish()
  .transform((v) => v ?? "");
const packageSchema = z.looseObject({
  action: text,
  package: z
    .looseObject({
      name: text,
      package_type: text,
      owner: z
        .looseObject({ login: text })
        .nullish()
        .transform((v) => v ?? { login: "" }),
      package_version: z
        .looseObject({
          container_metadata: z.looseObject({ tag: z.looseObject({ name: text }).nullish() }).nullish(),
        })
        .nullish(),
    })
    .nullish()
    .transform((v) => v ?? { name: "", package_type: "", owner: { login: "" }, package_version: undefined }),
});

/** An OCI repository URL as Argo CD compares them: no `oci://`, no trailing `/`, lower case. */
export function normalizeOci(url: string): string {
  return url
    .replace(/^oci:\/\//, "")
    .replace(/\/$/, "")
    .toLowerCase();
}

/** The event a package payload carries. */
export function ghcrEvent(body: string): WebhookEvent {
  const { action, package: pkg } = decodeJson(body, packageSchema, "GitHub package event");
  if (action !== "published") return { kind: "ignored", provider: "ghcr", reason: `package action ${action}` };
  if (pkg.package_type.toLowerCase() !== "container")
    return { kind: "ignored", provider: "ghcr", reason: `package type ${pkg.package_type}` };
  const repository = `${pkg.owner.login}/${pkg.name}`;
  const tag = pkg.package_version?.container_metadata?.tag?.name ?? "";
  if (tag === "") return { kind: "ignored", provider: "ghcr", reason: `no tag for repository ${repository}` };
  return { kind: "registry", provider: "ghcr", repository: normalizeOci(`oci://ghcr.io/${repository}`), tag };
}

/** GitHub's container registry's webhook dialect. */
export const ghcr: ProviderSpec = {
  name: "ghcr",
  detect: (h) => h["x-github-event"] === "package",
  verify: (req, secrets) => github.verify(req, secrets),
  parse: (req) => ghcrEvent(req.body.toString("utf8")),
};
