/**
 * Processing of an accepted event: every ApplicationSet the controller serves is matched against
 * it, and the affected ones get Argo CD's refresh annotation
 * (`argocd.argoproj.io/application-set-refresh: "true"`), which makes the controller reconcile
 * them now, past the Git revision cache, and remove the annotation afterwards.
 */
import type { ApplicationSet } from "../api/index.js";
import { errorMessage } from "../errors.js";
import type { Logger } from "../log/logger.js";
import { affectedGenerator } from "./match.js";
import type { WebhookEvent } from "./types.js";

/** What processing needs from the cluster. */
export interface RefreshPorts {
  /** The ApplicationSets of the namespaces the controller serves. */
  appSets: () => Promise<readonly ApplicationSet[]>;
  /** Sets the refresh annotation on one ApplicationSet. */
  refresh: (appSet: ApplicationSet) => Promise<void>;
}

/** Refreshes the ApplicationSets `event` can affect; resolves to their `namespace/name` keys. */
export async function refreshAffected(event: WebhookEvent, ports: RefreshPorts, logger: Logger): Promise<string[]> {
  if (event.kind === "ignored") return [];
  const refreshed: string[] = [];
  for (const appSet of await ports.appSets()) {
    const generator = affectedGenerator(appSet, event);
    if (generator === undefined) continue;
    const key = `${appSet.metadata.namespace ?? ""}/${appSet.metadata.name ?? ""}`;
    try {
      await ports.refresh(appSet);
      refreshed.push(key);
      logger.info(
        { applicationset: key, generator, provider: event.provider, event: event.kind },
        `refresh ApplicationSet ${key} from webhook`,
      );
    } catch (err) {
      logger.error(
        { applicationset: key, error: errorMessage(err) },
        `Failed to refresh ApplicationSet '${key}' for controller reprocessing`,
      );
    }
  }
  logger.info({ provider: event.provider, event: event.kind, refreshed }, "webhook event processed");
  return refreshed;
}
