/**
 * A namespace as a watch of the test's own sees it, for the chaos files: each ApplicationSet's
 * conditions, the Applications not being deleted, the deletions seen, and waits on any of them
 * (re-evaluated on each event, no polling).
 */
import { resources, type KubeApiClient, type KubeObject } from "../../../src/kube/index.js";
import { follow, type Follower } from "./follow.js";

type Conditions = Map<string, { status: string; message: string }>;

/**
 * What one namespace looks like from a watch: each ApplicationSet's conditions, the Applications
 * not being deleted, and the deletions seen.
 */
export class View {
  readonly conditions = new Map<string, Conditions>();
  readonly apps = new Map<string, KubeObject>();
  readonly deleted: string[] = [];
  private readonly waiters = new Set<() => void>();
  private followers: Follower[] = [];

  static async start(client: KubeApiClient, ns: string): Promise<View> {
    const v = new View();
    v.followers = await Promise.all([
      follow(client, resources.ApplicationSets, ns, (_t, o) => {
        const list = (
          (o["status"] as { conditions?: Array<{ type: string; status: string; message: string }> } | undefined)?.conditions ?? []
        ).map((c) => [c.type, { status: c.status, message: c.message }] as const);
        v.conditions.set(o.metadata?.name ?? "", new Map(list));
        v.wake();
      }),
      follow(client, resources.Applications, ns, (type, o) => {
        const name = o.metadata?.name ?? "";
        // Deleted, or being deleted: nothing removes the resources finalizer here (no application controller).
        const deleting = type === "DELETED" || o.metadata?.deletionTimestamp !== undefined;
        if (deleting) {
          if (v.apps.has(name)) v.deleted.push(name);
          v.apps.delete(name);
        } else v.apps.set(name, o);
        v.wake();
      }),
    ]);
    return v;
  }

  private wake(): void {
    for (const w of [...this.waiters]) w();
  }

  /** Milliseconds until `fn` holds, or undefined after `timeoutMs`. */
  async within(timeoutMs: number, fn: () => boolean): Promise<number | undefined> {
    const start = performance.now();
    return new Promise((resolve) => {
      const check = (): void => {
        if (!fn()) return;
        this.waiters.delete(check);
        clearTimeout(timer);
        resolve(performance.now() - start);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        resolve(undefined);
      }, timeoutMs);
      this.waiters.add(check);
      check();
    });
  }

  errorOf(appSet: string): string | undefined {
    const c = this.conditions.get(appSet)?.get("ErrorOccurred");
    return c?.status === "True" ? c.message : undefined;
  }

  upToDate(appSet: string): boolean {
    return this.conditions.get(appSet)?.get("ResourcesUpToDate")?.status === "True";
  }

  stop(): void {
    for (const f of this.followers) f.stop();
  }
}
