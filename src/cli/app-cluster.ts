/**
 * The cluster side of `appset sync APP`: reading an Application, writing a sync operation onto it
 * as Argo CD's API server does (refused while one is on it; the last operation's state cleared;
 * retried on a conflicting write), and a bounded wait for the operation to finish.
 */
import { parseApplication, type Application, type Operation } from "../api/index.js";
import type { Clock } from "../clock/index.js";
import { isConflict, isNotFound, resources, type KubeObject } from "../kube/index.js";
import { AppSetCommandError, type AppSetClient } from "./appset-cluster.js";
import { finishedOperation, IN_PROGRESS, operationPending } from "./app-sync.js";

/** How often the wait reads the Application again. */
export const SYNC_POLL_MS = 1000;
/** How many conflicting writes of the operation are retried. */
const MAX_CONFLICTS = 5;

/** One Application, or an {@link AppSetCommandError} saying there is none. */
export async function getApplication(client: AppSetClient, namespace: string, name: string): Promise<Application> {
  let obj: KubeObject;
  try {
    obj = await client.get(resources.Applications, { namespace, name });
  } catch (err) {
    if (isNotFound(err)) throw new AppSetCommandError(`application ${name} not found in namespace ${namespace}`);
    throw err;
  }
  const res = parseApplication(obj);
  if (!res.ok) throw new AppSetCommandError(res.error.message);
  return res.value;
}

/**
 * Writes the operation `build` makes of the Application read, at the resourceVersion read, with
 * `status.operationState` cleared; refused with Argo CD's message when an operation is on it.
 */
export async function requestSync(
  client: AppSetClient,
  namespace: string,
  name: string,
  build: (app: Application) => Operation,
): Promise<Operation> {
  for (let attempt = 0; ; attempt++) {
    const app = await getApplication(client, namespace, name);
    if (operationPending(app)) throw new AppSetCommandError(IN_PROGRESS);
    const operation = build(app);
    const body = { metadata: { resourceVersion: app.metadata.resourceVersion }, operation, status: { operationState: null } };
    try {
      await client.patch(resources.Applications, { namespace, name }, { type: "merge", body });
      return operation;
    } catch (err) {
      if (!isConflict(err) || attempt >= MAX_CONFLICTS) throw err;
    }
  }
}

/**
 * Reads the Application every {@link SYNC_POLL_MS} until its operation finished (its phase and
 * message) or `timeoutMs` passed (undefined).
 */
export async function waitOperation(
  client: AppSetClient,
  namespace: string,
  name: string,
  o: { clock: Clock; timeoutMs: number },
): Promise<{ phase: string; message: string } | undefined> {
  const deadline = o.clock.now() + o.timeoutMs;
  for (;;) {
    const done = finishedOperation(await getApplication(client, namespace, name));
    if (done !== undefined) return done;
    const left = deadline - o.clock.now();
    if (left <= 0) return undefined;
    await o.clock.sleep(Math.min(SYNC_POLL_MS, left));
  }
}
