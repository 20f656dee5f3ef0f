/**
 * The client-side limit on requests to the apiserver, as client-go's `flowcontrol` token bucket
 * (golang.org/x/time/rate): `qps` tokens a second refill a bucket of `burst`, every request takes
 * one, and a request that finds the bucket empty reserves the next token and waits for it, so
 * waiting requests go in arrival order. A wait that is aborted gives its token back. A `qps` of 0
 * or less turns the limit off. Time comes from the injected clock.
 */
import type { Clock } from "../clock/index.js";
import type { ResourceDescriptor } from "./ports.js";

/** Options of {@link TokenBucket}. */
export interface TokenBucketOptions {
  /** Tokens added a second. */
  readonly qps: number;
  /** Most tokens the bucket holds (at least 1). */
  readonly burst: number;
  readonly clock: Pick<Clock, "now" | "sleep">;
}

/** client-go's token-bucket rate limiter. */
export class TokenBucket {
  private tokens: number;
  private last: number;
  private readonly burst: number;

  constructor(private readonly options: TokenBucketOptions) {
    this.burst = Math.max(1, Math.floor(options.burst));
    this.tokens = this.burst;
    this.last = options.clock.now();
  }

  /** Takes one token now and returns how many milliseconds its holder must wait before using it. */
  reserve(): number {
    if (this.options.qps <= 0) return 0;
    this.refill();
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.options.qps) * 1000;
  }

  /** Waits for a token; rejects with the signal's reason, returning the token, when `signal` aborts first. */
  async wait(signal?: AbortSignal): Promise<void> {
    const delay = this.reserve();
    if (delay <= 0) return;
    try {
      await this.options.clock.sleep(delay, signal);
    } catch (err) {
      this.tokens = Math.min(this.burst, this.tokens + 1);
      throw err;
    }
  }

  private refill(): void {
    const now = this.options.clock.now();
    const elapsed = Math.max(0, now - this.last);
    this.last = now;
    this.tokens = Math.min(this.burst, this.tokens + (elapsed / 1000) * this.options.qps);
  }
}

/** What a request waits on before it is sent. */
export interface RequestLimiter {
  wait(signal?: AbortSignal): Promise<void>;
}

/**
 * One limiter per resource (group, version and plural), made on first use. Argo CD's controllers
 * build their client with controller-runtime, which makes one REST client, and so one client-go
 * token bucket, per kind: Application writes, ApplicationSet status writes and Events each have the
 * configured QPS and burst of their own (docs/configuration.md#kubernetes-client).
 */
export class LimiterPerResource {
  private readonly limiters = new Map<string, RequestLimiter>();

  constructor(private readonly make: () => RequestLimiter) {}

  /** The limiter of `resource`. */
  of(resource: ResourceDescriptor): RequestLimiter {
    const key = `${resource.group}/${resource.version}/${resource.plural}`;
    let limiter = this.limiters.get(key);
    if (limiter === undefined) {
      limiter = this.make();
      this.limiters.set(key, limiter);
    }
    return limiter;
  }
}
