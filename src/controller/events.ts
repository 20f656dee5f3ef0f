/**
 * Kubernetes Events on the ApplicationSet (docs/controller.md#kubernetes-events): all Normal,
 * reported by `applicationset-controller`. Recording is best effort: a failure is logged, never
 * returned, so an event can not fail a reconcile. As client-go's event recorder does, events are
 * correlated (similar ones combined, identical ones counted: event-correlator.ts) and a spam filter
 * bounds them per ApplicationSet: a token bucket of 25 that refills one token every 5 minutes;
 * events beyond it are dropped.
 */
import { CONTROLLER_COMPONENT, GROUP_VERSION, Kind, type ApplicationSet } from "../api/index.js";
import { rfc3339, type Clock } from "../clock/index.js";
import { errorMessage } from "../errors.js";
import { resources, type KubeObject, type KubeWriter } from "../kube/index.js";
import type { Logger } from "../log/logger.js";
import { EventCorrelator, type Correlated } from "./event-correlator.js";
import type { PlannedEvent } from "./plan-types.js";
import { boundText, MAX_EVENT_MESSAGE } from "../bounded-text.js";

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

/** client-go's broadcaster queue: an event that would wait behind this many is dropped. */
export const MAX_QUEUED_EVENTS = 1000;

/**
 * Records events as core/v1 Event objects through the kube writer, one at a time in the order they
 * were recorded, as client-go's broadcaster sends them. Sent side by side, the patch that counts a
 * repeat could reach the apiserver before the create of its Event, find nothing, and create it again
 * ("already exists"), losing the count.
 */
export class KubeEventSink implements EventSink {
  private readonly spam: SpamFilter;
  private readonly correlator: EventCorrelator;
  private tail: Promise<void> = Promise.resolve();
  private queued = 0;

  constructor(private readonly opts: { writer: KubeWriter; clock: Clock; logger: Logger }) {
    this.spam = new SpamFilter(opts.clock);
    this.correlator = new EventCorrelator(() => opts.clock.now());
  }

  /** Correlates the event now and queues it; resolves once it was sent (or dropped, or failed). */
  record(appSet: ApplicationSet, event: PlannedEvent): Promise<void> {
    const meta = appSet.metadata;
    const involved = {
      apiVersion: GROUP_VERSION,
      kind: Kind.ApplicationSet,
      name: meta.name ?? "",
      namespace: meta.namespace ?? "",
      uid: meta.uid ?? "",
    };
    const c = this.correlator.correlate({
      involved,
      type: "Normal",
      reason: event.reason,
      message: boundText(event.message, MAX_EVENT_MESSAGE),
      source: CONTROLLER_COMPONENT,
    });
    if (!this.spam.allow(meta.uid ?? `${involved.namespace}/${involved.name}`)) {
      this.opts.logger.debug({ reason: event.reason, message: event.message }, "event dropped by the spam filter");
      return Promise.resolve();
    }
    if (this.queued >= MAX_QUEUED_EVENTS) {
      this.opts.logger.debug({ reason: event.reason, message: event.message }, "event dropped: too many events waiting to be sent");
      return Promise.resolve();
    }
    const now = rfc3339(this.opts.clock.now());
    const body = {
      apiVersion: "v1",
      kind: "Event",
      metadata: { name: c.name, namespace: meta.namespace },
      involvedObject: { ...involved, resourceVersion: meta.resourceVersion },
      reason: event.reason,
      message: c.message,
      type: "Normal",
      source: { component: CONTROLLER_COMPONENT },
      reportingComponent: CONTROLLER_COMPONENT,
      firstTimestamp: rfc3339(c.firstTimestampMs),
      lastTimestamp: now,
      count: c.count,
    };
    this.queued++;
    const sent = this.tail.then(() => this.send(c, body, now)).finally(() => this.queued--);
    this.tail = sent;
    return sent;
  }

  /** Creates the Event `body`, or patches the count of the one `c` names. */
  private async send(c: Correlated, body: KubeObject & { reason: string }, now: string): Promise<void> {
    const namespace = body.metadata?.namespace;
    try {
      if (c.kind === "patch") {
        try {
          await this.opts.writer.patch(
            resources.Events,
            { namespace, name: c.name },
            { type: "merge", body: { count: c.count, lastTimestamp: now, message: c.message } },
          );
          return;
        } catch (err) {
          // Gone meanwhile (expired, deleted): record it anew, as client-go does.
          if ((err as { reason?: string }).reason !== "NotFound") throw err;
        }
      }
      await this.opts.writer.create(resources.Events, body);
    } catch (err) {
      this.opts.logger.warn({ reason: body.reason, error: errorMessage(err) }, "failed to record event");
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
