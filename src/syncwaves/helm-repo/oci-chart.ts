/**
 * Charts from Helm OCI registries (docs/sync-engine.md#helm-oci-registries): a `chart` source whose
 * repository is an OCI registry (`enableOCI: "true"` on its Secret, or a `repoURL` without a scheme
 * such as `registry.example.com/charts`), read as Argo CD's repo-server reads it. The chart lives
 * in the OCI repository `<repoURL>/<chart>`; an exact version is used as it is, a constraint is
 * resolved against that repository's tags (`_` read as `+`, as `helm push` writes `+`); the version
 * is the source's revision. The chart is fetched through the registry client of src/oci (the
 * registry's credentials are those of the `repoURL`'s Secret: basic auth or a token, a client
 * certificate, `insecure`, `insecureOCIForceHttp`, the CA bundle of its host), unpacked in memory
 * with its checks, then written to disk for helm with the workspace's.
 *
 * I/O boundary: the injected artifact reader and the file system (the chart's directory).
 */
import { join } from "node:path";
import { AppSetError, errorMessage } from "../../errors.js";
import type { RepoAccess } from "../../git/index.js";
import { MANIFEST_ERROR } from "../manifests.js";
import { artifactBlob, artifactEntries, type OciArtifacts } from "../oci-source.js";
import { writeTree } from "../render/workspace.js";
import { isVersion, maxVersion, VersionResolutionError } from "./versions.js";

/** One chart in a Helm OCI registry, and on whose behalf it is read. */
export interface OciChartRef {
  /** The registry's `repoURL` (its Secret's URL). */
  readonly repoURL: string;
  readonly chart: string;
  readonly access: RepoAccess;
  readonly signal?: AbortSignal | undefined;
}

/** The OCI repository of a chart: `oci://<repoURL>/<chart>`, an `https://` before the registry dropped (as Argo CD's tag listing drops it). */
export function ociChartRepository(repoURL: string, chart: string): string {
  const registry = repoURL.replace(/^https:\/\//, "").replace(/\/+$/, "");
  return `oci://${registry}/${chart}`;
}

/** The tag a chart version is pushed under: `+` cannot be in a tag, so `helm push` writes `_`. */
export function ociChartTag(version: string): string {
  return version.replaceAll("+", "_");
}

/** The last segment of a chart's name (Argo CD's `normalizeChartName`): the directory it unpacks to. */
export function chartDirName(chart: string): string {
  const parts = chart.split("/").filter((p) => p !== "" && p !== "." && p !== "..");
  return parts.at(-1) ?? "chart";
}

/** What an OCI chart read needs. */
export type OciCharts = Pick<OciArtifacts, "artifactAt" | "tags">;

/**
 * The version a revision names: itself when it is one, else the highest of the chart's tags that
 * meets the constraint. Fails with Argo CD's words (`unable to get tags: …`, `invalid revision: …`).
 */
export async function resolveOciChartVersion(oci: OciCharts, ref: OciChartRef, revision: string): Promise<string> {
  if (isVersion(revision)) return revision;
  let tags;
  try {
    tags = await oci.tags(ociChartRepository(ref.repoURL, ref.chart), {
      access: ref.access,
      credentialsURL: ref.repoURL,
      signal: ref.signal,
    });
  } catch (err) {
    if (ref.signal?.aborted === true) throw err;
    throw new AppSetError(MANIFEST_ERROR, `unable to get tags: failed to get tags: ${errorMessage(err)}`, { cause: err });
  }
  try {
    return maxVersion(
      revision,
      tags.map((t) => t.replaceAll("_", "+")),
    );
  } catch (err) {
    if (err instanceof VersionResolutionError) throw new AppSetError(MANIFEST_ERROR, `invalid revision: ${err.message}`);
    throw err;
  }
}

/** Fetches the chart at `version` and writes it unpacked to `<destination>/<chart's last segment>`. */
export async function pullOciChart(oci: OciCharts, ref: OciChartRef, version: string, destination: string): Promise<void> {
  let tree;
  try {
    const repo = ociChartRepository(ref.repoURL, ref.chart);
    ({ tree } = await oci.artifactAt(repo, ociChartTag(version), { access: ref.access, credentialsURL: ref.repoURL, signal: ref.signal }));
  } catch (err) {
    if (ref.signal?.aborted === true) throw err;
    throw new AppSetError(MANIFEST_ERROR, `error pulling OCI chart: ${errorMessage(err)}`, { cause: err });
  }
  const entries = artifactEntries(tree);
  const contents = entries.filter((e) => e.type === "blob").map((e) => artifactBlob(tree, e.path));
  await writeTree({ dir: join(destination, chartDirName(ref.chart)), tree: entries, contents, kind: "chart" });
}
