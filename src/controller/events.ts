/**
 * Kubernetes Events on the ApplicationSet (spec §4.14): all Normal, reported by
 * `applicationset-controller`. Recording is best effort: a failure is logged, never returned, so an
 * event can not fail a reconcile.
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

/** Records events as core/v1 Event objects through the kube writer. */
export class KubeEventSink implements EventSink {
  constructor(private readonly opts: { writer: KubeWriter; clock: Clock; logger: Logger }) {}

  async record(appSet: ApplicationSet, event: PlannedEvent): Promise<void> {
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
