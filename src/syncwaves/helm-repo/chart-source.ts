/**
 * Application sources from a Helm chart repository (`repoURL` an HTTP(S) Helm repository, `chart`
 * the chart, `targetRevision` a version or a semver constraint), read as Argo CD's repo-server
 * reads them: an exact version is used as it is; a constraint is resolved against the repository's
 * `index.yaml` to the highest version that meets it; the chart is pulled with the real `helm`
 * (kept per repository, chart, version and credentials) and rendered like a chart from Git, so
 * `helm.*` options apply. The revision of the result is the chart's version. Credentials come from
 * the repository and repo-creds Secrets matching the URL, as for Git; the CA bundle from the file
 * named after the repository's host in `argocd-tls-certs-cm`. A repository that is an OCI registry
 * (`enableOCI`, or a `repoURL` without a scheme) is read through the registry API instead
 * (helm-repo/oci-chart.ts), its tags standing for the index. Each network step (the index, the
 * pull) has a time limit.
 *
 * I/O boundary: the index request, helm, the chart cache and the renderer.
 */
import type { Application, ApplicationSource } from "../../api/index.js";
import { SystemClock, type Clock } from "../../clock/index.js";
import { AppSetError } from "../../errors.js";
import { remember } from "../../bounded-map.js";
import { caBundleFile, noCredentials, type CredentialsLookup, type RepoCredentials } from "../../git/index.js";
import type { ClusterFacts, KubeObject } from "../../kube/index.js";
import { MANIFEST_ERROR, type Manifests, type ReadOptions } from "../manifests.js";
import type { ToolRenderer } from "../render/renderer.js";
import { refCommits } from "../render/ref-values.js";
import { SourceType } from "../render/source-type.js";
import { helmAccess, isHelmOci, type HelmAccess } from "./access.js";
import { ChartCache, credentialsDigest } from "./chart-cache.js";
import { chartVersions, fetchIndex, type HelmIndex } from "./index-file.js";
import { pullOciChart, resolveOciChartVersion, type OciChartRef, type OciCharts } from "./oci-chart.js";
import { pullChart } from "./pull.js";
import { isVersion, maxVersion, VersionResolutionError } from "./versions.js";

/** Options of {@link HelmChartSource}. */
export interface HelmChartSourceOptions {
  /** Repository credentials (default: anonymous). */
  readonly credentials?: CredentialsLookup;
  /** The directory of CA bundles named after hosts (`argocd-tls-certs-cm` at `$ARGOCD_TLS_DATA_PATH`). */
  readonly tlsCertsDir?: string;
  /** How long a fetched index is kept, in ms (default 3000; 0: never). A refresh fetches it again. */
  readonly indexCacheMs?: number;
  /** Where pulled charts are kept (default a new temporary directory). */
  readonly cacheDir?: string;
  /** Measures the index's age (default the system clock). */
  readonly clock?: Clock;
  /** Rendered manifest sets kept in memory (default 512). */
  readonly maxParsed?: number;
  /** Largest `index.yaml` read, in bytes (default 1G, Argo CD's). */
  readonly maxIndexBytes?: number;
  /** Most bytes an unpacked chart may hold (default 1G, Argo CD's). */
  readonly maxChartBytes?: number;
  /** Where charts from Helm OCI registries are read (unset: they fail). */
  readonly oci?: OciCharts;
}

/** How helm runs: the program, its limit, its environment (from the renderer's options). */
export interface HelmProgram {
  readonly helm: string;
  readonly timeoutMs: number;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** What one read resolves before rendering. */
interface Resolved {
  readonly app: Application;
  readonly source: ApplicationSource & { chart: string };
  readonly version: string;
  readonly access: HelmAccess;
  readonly creds: RepoCredentials | undefined;
  readonly options: ReadOptions;
}

/** The facts a render needs when none were given. */
const NO_FACTS: ClusterFacts = { kubeVersion: "", apiVersions: [] };

/** Reads `chart` sources from Helm repositories. */
export class HelmChartSource {
  private readonly charts: ChartCache;
  private readonly indexes = new Map<string, { at: number; index: HelmIndex }>();
  private readonly parsed = new Map<string, readonly KubeObject[]>();
  private readonly clock: Clock;

  constructor(
    private readonly renderer: ToolRenderer,
    private readonly program: HelmProgram,
    private readonly options: HelmChartSourceOptions = {},
  ) {
    this.charts = new ChartCache(options.cacheDir);
    this.clock = options.clock ?? new SystemClock();
  }

  async read(
    app: Application,
    source: ApplicationSource & { chart: string },
    revision?: string,
    options: ReadOptions = {},
  ): Promise<Manifests> {
    const lookup = this.options.credentials ?? noCredentials;
    const project = app.spec.project === undefined || app.spec.project === "" ? undefined : app.spec.project;
    const creds = await lookup(source.repoURL, project);
    if (isHelmOci(source.repoURL, creds)) return this.readOci(app, source, revision, { options, creds, project });
    const access = helmAccess(source.repoURL, creds, await caBundleFile(this.options.tlsCertsDir, source.repoURL), this.program.env);
    const version = await this.resolve({ source, access, revision: revision ?? source.targetRevision ?? "", options });
    const objects = await this.rendered({ app, source, version, access, creds, options });
    return { revision: version, objects, sourceType: SourceType.Helm };
  }

  /** A chart from a Helm OCI registry (helm-repo/oci-chart.ts), its version as the revision. */
  private async readOci(
    app: Application,
    source: ApplicationSource & { chart: string },
    revision: string | undefined,
    at: { options: ReadOptions; creds: RepoCredentials | undefined; project: string | undefined },
  ): Promise<Manifests> {
    const oci = this.options.oci;
    if (oci === undefined) throw new AppSetError(MANIFEST_ERROR, `Helm OCI registries are not configured (${source.repoURL})`);
    const { options } = at;
    const ref: OciChartRef = {
      repoURL: source.repoURL,
      chart: source.chart,
      access: at.project === undefined ? {} : { project: at.project },
      signal: options.signal,
    };
    const version = await resolveOciChartVersion(oci, ref, revision ?? source.targetRevision ?? "");
    const objects = await this.renderKept({ app, source, version, creds: at.creds, options }, (destination) =>
      pullOciChart(oci, ref, version, destination),
    );
    return { revision: version, objects, sourceType: SourceType.Helm };
  }

  /** The version a revision names: itself when it is one, else the index's highest match. */
  private async resolve(r: {
    source: ApplicationSource & { chart: string };
    access: HelmAccess;
    revision: string;
    options: ReadOptions;
  }): Promise<string> {
    if (isVersion(r.revision)) return r.revision;
    const index = await this.index(r.source.repoURL, r.access, r.options);
    try {
      return maxVersion(r.revision, chartVersions(index, r.source.chart));
    } catch (err) {
      if (err instanceof VersionResolutionError) throw new AppSetError(MANIFEST_ERROR, `invalid revision: ${err.message}`);
      throw err;
    }
  }

  /** The repository's index, kept for a few seconds unless the read is a refresh. */
  private async index(repoURL: string, access: HelmAccess, options: ReadOptions): Promise<HelmIndex> {
    const key = JSON.stringify([repoURL, credentialsDigest(access)]);
    const keepMs = this.options.indexCacheMs ?? 3000;
    const kept = this.indexes.get(key);
    const fresh = options.refresh !== true && options.hard !== true;
    if (fresh && kept !== undefined && this.clock.now() - kept.at < keepMs) return kept.index;
    const index = await fetchIndex({
      repoURL,
      access,
      timeoutMs: this.program.timeoutMs,
      signal: options.signal,
      maxBytes: this.options.maxIndexBytes,
    });
    if (keepMs > 0) remember(this.indexes, key, { at: this.clock.now(), index }, 64);
    return index;
  }

  /** The rendered chart, from memory or pulled (or kept) and rendered now. */
  private rendered(r: Resolved): Promise<readonly KubeObject[]> {
    const { source, version, options } = r;
    return this.renderKept(r, (destination) =>
      pullChart(
        {
          ...this.program,
          repoURL: source.repoURL,
          chart: source.chart,
          version,
          access: r.access,
          passCredentials: source.helm?.passCredentials === true,
          signal: options.signal,
          maxBytes: this.options.maxChartBytes,
        },
        destination,
      ),
    );
  }

  /** The rendered chart, from memory, or from the chart kept on disk (`pull` puts it there when missing) rendered now. */
  private async renderKept(r: Omit<Resolved, "access">, pull: (destination: string) => Promise<void>): Promise<readonly KubeObject[]> {
    const { app, source, version, options } = r;
    const instanceName = options.instanceName ?? app.metadata.name ?? "";
    const facts = options.cluster === undefined ? NO_FACTS : await options.cluster();
    const credentials = credentialsDigest(r.creds ?? null);
    const chartKey = { repoURL: source.repoURL, chart: source.chart, version, credentials };
    const refs = refCommits(options.refRepos);
    const key = JSON.stringify([chartKey, source.helm ?? null, instanceName, app.spec.destination.namespace ?? "", facts, refs]);
    if (options.hard === true) {
      this.parsed.delete(key);
      await this.charts.forget(chartKey);
    }
    const cached = this.parsed.get(key);
    if (cached !== undefined) return cached;
    const chartDir = await this.charts.chartDir(chartKey, pull);
    const at = { chartDir, version, instanceName, facts, signal: options.signal, refs: options.refRepos };
    const objects = await this.renderer.renderChart({ app, source, ...at });
    remember(this.parsed, key, objects, this.options.maxParsed ?? 512);
    return objects;
  }
}
