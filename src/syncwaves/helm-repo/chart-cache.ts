/**
 * Pulled charts kept on disk, one unpacked chart per (repository, chart, version, credentials), as
 * Argo CD's repo-server keeps the pulled archive per repository, chart, version and project: a
 * chart is pulled once and every later render copies it. Callers asking for the same chart at once
 * share one pull; a pull lands in a temporary directory and is renamed into place, so a failed or
 * aborted one leaves nothing behind. A hard refresh forgets the kept chart (Argo CD's
 * `CleanChartCache`).
 *
 * I/O boundary: the cache directory.
 */
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readdir, rename, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AppSetError } from "../../errors.js";
import { MANIFEST_ERROR } from "../manifests.js";

/** What names one kept chart. */
export interface ChartKey {
  readonly repoURL: string;
  readonly chart: string;
  readonly version: string;
  /** A digest of the credentials it was pulled with: a chart is only served to callers with the same ones. */
  readonly credentials: string;
}

/** A digest of any credentials, for {@link ChartKey.credentials}. */
export function credentialsDigest(creds: unknown): string {
  return createHash("sha256")
    .update(JSON.stringify(creds ?? null))
    .digest("hex");
}

/** Unpacked charts on disk. */
export class ChartCache {
  private root: Promise<string> | undefined;
  private readonly pulls = new Map<string, Promise<string>>();

  /** `dir`: where the charts are kept (default a new directory under the system's temporary directory). */
  constructor(private readonly dir?: string) {}

  private base(): Promise<string> {
    this.root ??=
      this.dir === undefined ? mkdtemp(join(tmpdir(), "appset-helm-charts-")) : mkdir(this.dir, { recursive: true }).then(() => this.dir!);
    return this.root;
  }

  /** Forgets a kept chart. */
  async forget(key: ChartKey): Promise<void> {
    await rm(join(await this.base(), hashOf(key)), { recursive: true, force: true });
  }

  /**
   * The directory of the unpacked chart: kept, or pulled now by `pull` (which unpacks the chart
   * into the directory it is given).
   */
  chartDir(key: ChartKey, pull: (destination: string) => Promise<void>): Promise<string> {
    const hash = hashOf(key);
    const running = this.pulls.get(hash);
    if (running !== undefined) return running;
    const next = this.kept(hash, pull).finally(() => this.pulls.delete(hash));
    this.pulls.set(hash, next);
    return next;
  }

  private async kept(hash: string, pull: (destination: string) => Promise<void>): Promise<string> {
    const base = await this.base();
    const dir = join(base, hash);
    const existing = await readdir(dir).catch(() => undefined);
    if (existing !== undefined) return chartIn(dir, existing);
    const scratch = await mkdtemp(join(base, `.pull-${hash.slice(0, 12)}-`));
    try {
      await pull(scratch);
      const entries = await readdir(scratch);
      chartIn(scratch, entries);
      // Another process sharing the directory may have kept the same chart meanwhile: use it.
      await rename(scratch, dir).catch(async (err: unknown) => {
        if ((await readdir(dir).catch(() => undefined)) === undefined) throw err;
      });
      return chartIn(dir, await readdir(dir));
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }
}

function hashOf(key: ChartKey): string {
  return createHash("sha256")
    .update(JSON.stringify([key.repoURL, key.chart, key.version, key.credentials]))
    .digest("hex");
}

/** The one chart directory a pull leaves (Argo CD: "expected 1 file, found N"). */
function chartIn(dir: string, entries: readonly string[]): string {
  if (entries.length !== 1) throw new AppSetError(MANIFEST_ERROR, `expected 1 file, found ${String(entries.length)}`);
  return join(dir, entries[0]!);
}
