/**
 * How fast a controller process writes, from its own metrics: `rest_client_requests_total` (the
 * requests its kube clients sent, by method) read from its metrics server every 250 ms. The peak
 * over any one-second window after an outage says whether the recovery stayed within the client's
 * rate limit (token bucket: at most burst + QPS requests in one second) or became a storm.
 */

/** The methods that write. */
const WRITES = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** Sums `rest_client_requests_total` over the write methods in a Prometheus text exposition. */
export function writesIn(exposition: string): number {
  let total = 0;
  for (const line of exposition.split("\n")) {
    if (!line.startsWith("rest_client_requests_total{")) continue;
    const method = /method="([^"]*)"/.exec(line)?.[1] ?? "";
    if (!WRITES.has(method)) continue;
    const value = Number(line.slice(line.lastIndexOf(" ") + 1));
    if (Number.isFinite(value)) total += value;
  }
  return total;
}

/** The largest number of writes within `windowMs` among samples `[t, total]` in time order. */
export function peakWrites(samples: ReadonlyArray<readonly [number, number]>, windowMs = 1_000): number {
  let peak = 0;
  let start = 0;
  for (let end = 0; end < samples.length; end++) {
    while (samples[end]![0] - samples[start]![0] > windowMs) start++;
    peak = Math.max(peak, samples[end]![1] - samples[start]![1]);
  }
  return peak;
}

/** Samples a metrics URL's write count every 250 ms until stopped. */
export class WriteRate {
  private readonly samples: Array<[number, number]> = [];
  private running = true;
  private readonly loop: Promise<void>;

  constructor(
    private readonly metricsUrl: string,
    private readonly now: () => number,
  ) {
    this.loop = this.run();
  }

  private async run(): Promise<void> {
    while (this.running) {
      try {
        const res = await fetch(this.metricsUrl, { signal: AbortSignal.timeout(2_000) });
        this.samples.push([this.now(), writesIn(await res.text())]);
      } catch {
        // The metrics server is the controller's own: it answers unless the process is busy or gone.
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  /** Stops sampling; resolves with the peak writes in one second and the total written between `from` and now. */
  async stop(from: number): Promise<{ peakPerSecond: number; writes: number }> {
    this.running = false;
    await this.loop;
    const after = this.samples.filter(([t]) => t >= from);
    const writes = after.length === 0 ? 0 : after[after.length - 1]![1] - after[0]![1];
    return { peakPerSecond: peakWrites(after), writes };
  }
}
