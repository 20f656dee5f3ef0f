/**
 * Kubernetes Events on the ApplicationSet (spec §4.14): all Normal, reported by
 * `applicationset-controller`. Recording is best effort: a failure is logged, never returned, so an
 * event can not fail a reconcile. As client-go's event recorder does, a spam filter bounds the events
 * per ApplicationSet: a token bucket of 25 that refills one token every 5 minutes; events beyond it
 * are dropped.
 */
import { CONTROLLER_COMPONENT, GROUP_VERSION, Kind, type ApplicationSet } from "../api/index.js";
import { rfc3339, type Clock } from "../clock/index.js";
import { errorMessage } from "../errors.js";
import { resources, type KubeWriter } from "../kube/index.js";
import type { Logger } from "../log/logger.js";
import type { PlannedEvent } from "./plantypes.js";

/** Where events go. */
export interface EventSink {
  record(appSet: ApplicationSet, event: PlannedEvent): Promise<void>;
}

/** client-go's `EventSourceObjectSpamFilter` defaults: burst 25, one token per 5 minutes. */
export const SPAM_BURST = 25;
const SPAM_REFILL_MS = 300_000;

/** Per-object token buckets (client-go's spam filter). */
export class SpamFilter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(private readonly clock: Clock) {}

  /** True when an event about `key` may be sent now (and takes a token). */
  allow(key: string): boolean {
    const now = this.clock.now();
    const b = this.buckets.get(key) ?? { tokens: SPAM_BURST, at: now };
    const tokens = Math.min(SPAM_BURST, b.tokens + (now - b.at) / SPAM_REFILL_MS);
    const ok = tokens >= 1;
    this.buckets.set(key, { tokens: ok ? tokens - 1 : tokens, at: now });
    return ok;
  }
}

/** Records events as core/v1 Event objects through the kube writer. */
export class KubeEventSink implements EventSink {
  private readonly spam: SpamFilter;

  constructor(private readonly opts: { writer: KubeWriter; clock: Clock; logger: Logger }) {
    this.spam = new SpamFilter(opts.clock);
  }

  async record(appSet: ApplicationSet, event: PlannedEvent): Promise<void> {
    if (!this.spam.allow(appSet.metadata.uid ?? `${appSet.metadata.namespace ?? ""}/${appSet.metadata.name ?? ""}`)) {
      this.opts.logger.debug({ reason: event.reason, message: event.message }, "event dropped by the spam filter");
      return;
    }
    const now = rfc3339(this.opts.clock.now());
    const meta = appSet.metadata;
    const body = {
      apiVersion: "v1",
      kind: "Event",
      metadata: { generateName: `${meta.name ?? ""}.`, namespace: meta.namespace },
      involvedObject: { apiVersion: GROUP_VERSION, kind: Kind.ApplicationSet, name: meta.name, namespace: meta.namespace, uid: meta.uid, resourceVersion: meta.resourceVersion },
      reason: event.reason,
      message: event.message,
      type: "Normal",
      source: { component: CONTROLLER_COMPONENT },
      reportingComponent: CONTROLLER_COMPONENT,
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
    };
    try {
      await this.opts.writer.create(resources.Events, body);
    } catch (err) {
      this.opts.logger.warn({ reason: event.reason, error: errorMessage(err) }, "failed to record event");
    }
  }
}

/** Keeps events in memory (tests, and dry runs that should not write events). */
export class MemoryEventSink implements EventSink {
  readonly events: Array<PlannedEvent & { appSet: string }> = [];

  record(appSet: ApplicationSet, event: PlannedEvent): Promise<void> {
    this.events.push({ appSet: appSet.metadata.name ?? "", ...event });
    return Promise.resolve();
  }
}
