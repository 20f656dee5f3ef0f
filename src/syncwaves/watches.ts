/**
 * Watches on managed resources: one informer per (cluster, resource) the Applications use, started
 * the first time a comparison reports the kind. Any change to an object carrying a tracking id
 * (`<app>:<group>/<kind>:<namespace>/<name>`) requeues the Applications of that tracking name, so a
 * Job completing, a Deployment becoming available or an object disappearing moves a sync on at once
 * instead of at the next poll. The informers cache only the identity and tracking id of each object.
 *
 * I/O boundary: list+watch streams on each cluster, timers on the injected Clock.
 */
import { Annotation } from "../api/index.js";
import type { Clock } from "../clock/index.js";
import { Informer, type KubeObject, type ResourceDescriptor } from "../kube/index.js";
import type { ClusterAccess } from "./destinations.js";

/** The tracking name in an object's tracking id, if it has one. */
export function trackedName(obj: KubeObject): string | undefined {
  const id = obj.metadata?.annotations?.[Annotation.TrackingId];
  if (id === undefined) return undefined;
  const colon = id.indexOf(":");
  return colon > 0 ? id.slice(0, colon) : undefined;
}

/** The part of an object the watch cache keeps. */
function slim(raw: KubeObject): KubeObject {
  const m = raw.metadata ?? {};
  const tracking = m.annotations?.[Annotation.TrackingId];
  return {
    ...(raw.apiVersion ? { apiVersion: raw.apiVersion } : {}),
    ...(raw.kind ? { kind: raw.kind } : {}),
    metadata: {
      ...(m.name ? { name: m.name } : {}),
      ...(m.namespace ? { namespace: m.namespace } : {}),
      ...(m.resourceVersion ? { resourceVersion: m.resourceVersion } : {}),
      ...(tracking ? { annotations: { [Annotation.TrackingId]: tracking } } : {}),
    },
  };
}

/** Options of {@link ResourceWatches}. */
export interface ResourceWatchesOptions {
  readonly clock: Clock;
  /** Called with the tracking name of every changed object. */
  readonly onChange: (trackingName: string) => void;
}

/** The informers on managed resources. */
export class ResourceWatches {
  private readonly informers = new Map<string, Informer<KubeObject>>();
  /** The `host:port` of each informer's cluster, by informer key. */
  private readonly hosts = new Map<string, string>();
  private stopped = false;

  constructor(private readonly opts: ResourceWatchesOptions) {}

  /** Number of resources watched. */
  get size(): number {
    return this.informers.size;
  }

  /** Makes sure every given resource of the cluster is watched. */
  ensure(access: ClusterAccess, descriptors: readonly ResourceDescriptor[]): void {
    if (this.stopped) return;
    for (const d of descriptors) {
      const key = `${access.id}|${d.group}/${d.version}/${d.plural}`;
      if (this.informers.has(key)) continue;
      const informer = new Informer<KubeObject>({ source: access.client, resource: d, clock: this.opts.clock, parse: slim });
      const notify = (o: KubeObject): void => {
        const name = trackedName(o);
        if (name !== undefined) this.opts.onChange(name);
      };
      informer.on({ add: notify, update: (_old, o) => notify(o), delete: notify });
      this.informers.set(key, informer);
      this.hosts.set(key, hostOf(access.id));
      informer.start();
    }
  }

  /** Ends the back-off wait of every informer on the cluster at `host` (`host:port`): it answers again. */
  retryNow(host: string): void {
    for (const [key, informer] of this.informers) if (this.hosts.get(key) === host) informer.retryNow();
  }

  /** Stops every informer. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all([...this.informers.values()].map((i) => i.stop()));
    this.informers.clear();
    this.hosts.clear();
  }
}

/** The `host:port` of a cluster's server URL ("" for the local cluster's id or a malformed one). */
function hostOf(server: string): string {
  try {
    return new URL(server).host;
  } catch {
    return "";
  }
}
