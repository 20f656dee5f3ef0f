/**
 * The webhook server as the controller runs it: settings from `argocd-secret` and `argocd-cm`,
 * ApplicationSets from the controller's cache (or the API), refreshes through the API. An empty
 * `--webhook-addr` turns the server off. A failure to bind is logged and the controller runs on:
 * webhooks only hasten reconciles that requeues still make (Argo CD exits instead).
 */
import type { ApplicationSet } from "../api/index.js";
import type { Clock } from "../clock/index.js";
import { errorMessage } from "../errors.js";
import type { KubeClient } from "../kube/index.js";
import type { Logger } from "../log/logger.js";
import { annotationRefresher, appSetLister, argoSettingsReader } from "./kube.js";
import { cachedSettings } from "./secrets.js";
import { startWebhookServer, type WebhookServer } from "./server.js";

/** Options of {@link startControllerWebhook}. */
export interface ControllerWebhookOptions {
  /** `--webhook-addr`; empty: no server. */
  readonly addr: string;
  /** `--webhook-parallelism-limit`. */
  readonly parallelism: number;
  /** `--dry-run`: refreshes are sent with dryRun and change nothing. */
  readonly dryRun: boolean;
  readonly client: KubeClient;
  /** The controller namespace (where `argocd-secret` and `argocd-cm` live). */
  readonly namespace: string;
  /** The namespace ApplicationSets are listed from, or undefined for every namespace. */
  readonly scope: string | undefined;
  readonly allowed: (namespace: string) => boolean;
  /** The controller's ApplicationSet informer, used once synced. */
  readonly informer?: { hasSynced(): boolean; list(): ApplicationSet[] };
  readonly logger: Logger;
  readonly clock: Clock;
}

/** Starts the webhook server, or resolves to undefined when it is off or cannot bind. */
export async function startControllerWebhook(o: ControllerWebhookOptions): Promise<WebhookServer | undefined> {
  const logger = o.logger.child({ component: "webhook" });
  if (o.addr === "") {
    logger.info("webhook server off (--webhook-addr is empty)");
    return undefined;
  }
  const settings = cachedSettings({
    read: argoSettingsReader(o.client, o.namespace),
    clock: o.clock,
    onError: (err) => logger.error({ error: errorMessage(err) }, "failed to read the webhook settings from argocd-secret and argocd-cm"),
  });
  try {
    return await startWebhookServer({
      addr: o.addr,
      parallelism: o.parallelism,
      settings,
      appSets: appSetLister({ client: o.client, scope: o.scope, allowed: o.allowed, ...(o.informer ? { informer: o.informer } : {}) }),
      refresh: annotationRefresher(o.client, o.dryRun),
      logger,
      clock: o.clock,
    });
  } catch (err) {
    logger.error({ addr: o.addr, error: errorMessage(err) }, "failed to start webhook server");
    return undefined;
  }
}
