/**
 * The types of {@link Informer}'s public surface: its logger, handlers, options and counters.
 */
import type { Clock } from "../clock/index.js";
import type { BackoffPolicy } from "./backoff.js";
import type { KubeObject, ListWatchSource, ResourceDescriptor } from "./ports.js";

/** The logger an informer writes to (pino's shape). */
export interface InformerLog {
  debug(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/**
 * Callbacks for cache changes, called synchronously as events arrive, so keep them short (enqueue a
 * key). Exceptions thrown by a handler are logged and swallowed.
 */
export interface InformerHandlers<T> {
  add?(obj: T): void;
  update?(oldObj: T, newObj: T): void;
  /** Receives the last version the cache held. */
  delete?(obj: T): void;
}

/** Options of {@link Informer}. */
export interface InformerOptions<T> {
  source: ListWatchSource;
  resource: ResourceDescriptor;
  clock: Clock;
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Turns a raw object into the cached type; throw to reject it. Defaults to the identity. */
  parse?: (raw: KubeObject) => T;
  /** Told about every object `parse` rejected. */
  onInvalid?: (raw: KubeObject, error: unknown) => void;
  log?: InformerLog;
  /** Restart a watch that delivered nothing (not even a bookmark) for this long. Default 3 min. */
  idleTimeoutMs?: number;
  /** Server-side watch timeout. Default: a random 5 to 10 minutes, as client-go does. */
  watchTimeoutSeconds?: number;
  /**
   * Relist from the apiserver this long after the previous list (0 or absent: never). The relist is
   * diffed, so only objects that really differ reach the handlers.
   */
  resyncPeriodMs?: number;
  /** List page size. Default 500. */
  pageSize?: number;
  backoff?: BackoffPolicy;
  /** Source of randomness for jitter; defaults to Math.random. */
  random?: () => number;
}

/** Counters of what the informer has done, for metrics and tests. */
export interface InformerStats {
  lists: number;
  watches: number;
  events: number;
  /** 410 Gone responses that forced a relist. */
  gone: number;
  /** Failures that led to a backoff. */
  failures: number;
  /** Watches aborted as silently dead. */
  idleRestarts: number;
  /** Objects `parse` rejected. */
  invalid: number;
  /** Periodic relists ({@link InformerOptions.resyncPeriodMs}). */
  resyncs: number;
}
