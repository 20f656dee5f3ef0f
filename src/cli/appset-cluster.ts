/**
 * The cluster side of `appset list|get|refresh`: the ApplicationSets of a namespace (or of all),
 * paged with a cap; the Applications they own; one ApplicationSet; and the refresh request (the
 * annotation the controller removes once it has reconciled), with a bounded wait for its removal.
 * Every wait is bounded by the injected clock; what is shown is left to appset-view.ts.
 */
import { Annotation, parseApplication, parseApplicationSet, type Application, type ApplicationSet } from "../api/index.js";
import type { Clock } from "../clock/index.js";
import { AppSetError } from "../errors.js";
import { isNotFound, resources, type KubeObject, type KubeReader, type KubeWriter, type ResourceDescriptor } from "../kube/index.js";

/** What the commands need of a Kubernetes client (KubeApiClient has it all). */
export type AppSetClient = KubeReader & Pick<KubeWriter, "patch">;

/** Page size of a list, and how many pages are read at most. */
export const LIST_PAGE_SIZE = 500;
export const MAX_LIST_PAGES = 20;
/** How often `refresh --wait` reads the ApplicationSet again. */
export const REFRESH_POLL_MS = 500;

/** A failure whose message is meant for the person: exit 1. */
export class AppSetCommandError extends AppSetError {
  constructor(message: string) {
    super("AppSetCommand", message);
  }
}

/** Every object of `resource` in `namespace` (all namespaces when undefined), at most MAX_LIST_PAGES pages. */
async function listAll(client: AppSetClient, resource: ResourceDescriptor, namespace: string | undefined): Promise<KubeObject[]> {
  const items: KubeObject[] = [];
  let next: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    const list = await client.list(resource, {
      ...(namespace === undefined ? {} : { namespace }),
      limit: LIST_PAGE_SIZE,
      ...(next === undefined ? {} : { continue: next }),
    });
    items.push(...list.items);
    next = list.continue;
    if (next === undefined) break;
  }
  return items;
}

/** What was read, and the names of the objects that did not match the schema (left out). */
export interface Read<T> {
  readonly items: T[];
  readonly unreadable: string[];
}

function parsedAll<T>(items: readonly KubeObject[], parse: (o: unknown) => { ok: true; value: T } | { ok: false }): Read<T> {
  const read: T[] = [];
  const unreadable: string[] = [];
  for (const item of items) {
    const res = parse(item);
    if (res.ok) read.push(res.value);
    else unreadable.push(`${item.metadata?.namespace ?? ""}/${item.metadata?.name ?? ""}`);
  }
  return { items: read, unreadable };
}

/** The ApplicationSets and Applications of `namespace` (all namespaces when undefined). */
export async function listAppSets(
  client: AppSetClient,
  namespace: string | undefined,
): Promise<{ appSets: Read<ApplicationSet>; apps: Read<Application> }> {
  const [appSets, apps] = await Promise.all([
    listAll(client, resources.ApplicationSets, namespace),
    listAll(client, resources.Applications, namespace),
  ]);
  return { appSets: parsedAll(appSets, parseApplicationSet), apps: parsedAll(apps, parseApplication) };
}

/** One ApplicationSet, or an {@link AppSetCommandError} saying there is none. */
export async function getAppSet(client: AppSetClient, namespace: string, name: string): Promise<ApplicationSet> {
  let obj: KubeObject;
  try {
    obj = await client.get(resources.ApplicationSets, { namespace, name });
  } catch (err) {
    if (isNotFound(err)) throw new AppSetCommandError(`ApplicationSet ${name} not found in namespace ${namespace}`);
    throw err;
  }
  const res = parseApplicationSet(obj);
  if (!res.ok) throw new AppSetCommandError(res.error.message);
  return res.value;
}

/** One ApplicationSet and the Applications of its namespace. */
export async function getAppSetWithApps(
  client: AppSetClient,
  namespace: string,
  name: string,
): Promise<{ appSet: ApplicationSet; apps: Application[] }> {
  const [appSet, apps] = await Promise.all([getAppSet(client, namespace, name), listAll(client, resources.Applications, namespace)]);
  return { appSet, apps: parsedAll(apps, parseApplication).items };
}

/** Whether the refresh request is still on the ApplicationSet. */
export const refreshPending = (appSet: { metadata?: { annotations?: Record<string, string> | null } }): boolean =>
  appSet.metadata?.annotations?.[Annotation.ApplicationSetRefresh] !== undefined;

/** Sets the refresh annotation (what Argo CD's webhook sets); the ApplicationSet must exist. */
export async function requestRefresh(client: AppSetClient, namespace: string, name: string): Promise<void> {
  await getAppSet(client, namespace, name);
  const body = { metadata: { annotations: { [Annotation.ApplicationSetRefresh]: "true" } } };
  await client.patch(resources.ApplicationSets, { namespace, name }, { type: "merge", body });
}

/**
 * Reads the ApplicationSet every {@link REFRESH_POLL_MS} until the controller removed the
 * annotation (true) or `timeoutMs` passed (false).
 */
export async function waitRefreshed(
  client: AppSetClient,
  namespace: string,
  name: string,
  o: { clock: Clock; timeoutMs: number },
): Promise<boolean> {
  const deadline = o.clock.now() + o.timeoutMs;
  for (;;) {
    if (!refreshPending(await getAppSet(client, namespace, name))) return true;
    const left = deadline - o.clock.now();
    if (left <= 0) return false;
    await o.clock.sleep(Math.min(REFRESH_POLL_MS, left));
  }
}
