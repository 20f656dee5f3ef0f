/**
 * The demo's scenario against any control plane that has the CRDs: a namespace with the `default`
 * AppProject, the guestbook Git repository, the controller, the RollingSync ApplicationSet, the
 * rollout watched step by step (syncing qa by hand, as `argocd app sync` does, when it waits for
 * it), then the Reverse deletion watched Application by Application. Stops the controller at the end,
 * also when it fails or is aborted.
 */
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { parseApplication, type Application, type ApplicationSet } from "../../src/api/index.js";
import { KubeApiClient, resources, type KubeObject } from "../../src/kube/index.js";
import { startDemoController, readLog, type DemoController } from "./controller.js";
import { guestbookAppSet, guestbookNamespaces, makeGuestbookRepo } from "./guestbook.js";
import type { Reporter, Stopwatch } from "./reporter.js";
import { nextView, rolloutComplete, stepAwaitingManualSync, type StepView, type View } from "./view.js";

/** Options of {@link runScenario}. */
export interface ScenarioOptions {
  readonly kubeconfigPath: string;
  /** The controller's namespace, where the ApplicationSet and its Applications live. */
  readonly namespace: string;
  /** The guestbook is deployed to `<prefix>-<environment>`. */
  readonly namespacePrefix: string;
  /** A directory for the Git repository and the controller's log. */
  readonly workDir: string;
  readonly reporter: Reporter;
  readonly stopwatch: Stopwatch;
  readonly signal: AbortSignal;
  /** After the rollout, keep watching until `signal` aborts instead of deleting (called with the hint to print). */
  readonly keep?: (view: View) => string;
  /** Limit for the rollout and for the deletion (default 5 minutes each). */
  readonly phaseTimeoutMs?: number;
}

const APPSET = "guestbook";
const POLL_MS = 250;

/** Runs the scenario; resolves when the Reverse deletion is over (or, with `keep`, when aborted). */
export async function runScenario(opts: ScenarioOptions): Promise<void> {
  const client = KubeApiClient.fromConfig({ kind: "file", path: opts.kubeconfigPath });
  let controller: DemoController | undefined;
  try {
    opts.reporter.phase(`Namespace ${opts.namespace} with the default AppProject; the guestbook's namespaces`);
    await opts.stopwatch.time("namespaces", () => prepareNamespaces(client, opts.namespace, guestbookNamespaces(opts.namespacePrefix)));
    opts.reporter.phase("Git repository with the guestbook manifests (Deployment + Service)");
    const repoURL = await opts.stopwatch.time("git repository", () => Promise.resolve(makeGuestbookRepo(join(opts.workDir, "repo"))));
    opts.reporter.note(`  ${repoURL}`);
    opts.reporter.phase("appset controller --enable-progressive-syncs --enable-sync-engine");
    controller = await opts.stopwatch.time("controller start", () =>
      startDemoController(opts.kubeconfigPath, opts.namespace, opts.workDir, opts.signal),
    );
    opts.reporter.note(`  running (pid ${controller.process.pid}), log: ${controller.logPath}`);
    await rollout(client, opts, repoURL);
    if (opts.keep !== undefined) {
      await watchUntilAborted(client, opts);
      return;
    }
    await reverseDeletion(client, opts);
  } catch (err) {
    throw withLogTail(err, controller);
  } finally {
    const running = controller;
    if (running !== undefined) {
      opts.reporter.phase("Stopping the controller");
      await opts.stopwatch.time("controller stop", () => running.stop());
    }
    await client.transport.close();
  }
}

async function prepareNamespaces(client: KubeApiClient, namespace: string, destinations: readonly string[]): Promise<void> {
  const ignoreExists = (err: unknown): void => {
    if ((err as { reason?: string }).reason !== "AlreadyExists") throw err;
  };
  for (const name of [namespace, ...destinations]) await client.create(resources.Namespaces, { metadata: { name } }).catch(ignoreExists);
  await client
    .create(resources.AppProjects, {
      apiVersion: "argoproj.io/v1alpha1",
      kind: "AppProject",
      metadata: { name: "default", namespace },
      spec: { sourceRepos: ["*"], destinations: [{ server: "*", namespace: "*" }], clusterResourceWhitelist: [{ group: "*", kind: "*" }] },
    })
    .catch(ignoreExists);
}

/** Polls the ApplicationSet and its Applications, feeding each new view to `step` until it returns true. */
async function watch(
  client: KubeApiClient,
  opts: ScenarioOptions,
  what: string,
  step: (view: View) => Promise<boolean>,
  timeoutMs = opts.phaseTimeoutMs ?? 300_000,
): Promise<View> {
  const deadline = performance.now() + timeoutMs;
  let view: View | undefined;
  for (;;) {
    view = nextView(view, await observe(client, opts.namespace), APPSET);
    opts.reporter.show(view);
    if (await step(view)) return view;
    if (performance.now() > deadline) throw new Error(`timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${what}`);
    await sleep(POLL_MS, undefined, { signal: opts.signal });
  }
}

async function observe(client: KubeApiClient, namespace: string): Promise<{ appSet: ApplicationSet | undefined; apps: Application[] }> {
  const [appSet, list] = await Promise.all([
    client.get<ApplicationSet & KubeObject>(resources.ApplicationSets, { namespace, name: APPSET }).catch((err: unknown) => {
      if ((err as { reason?: string }).reason === "NotFound") return undefined;
      throw err;
    }),
    client.list(resources.Applications, { namespace }),
  ]);
  const apps = list.items.flatMap((o) => {
    const r = parseApplication(o);
    return r.ok ? [r.value] : [];
  });
  return { appSet, apps };
}

const stepName = (step: StepView): string => `step ${step.index} (${step.selector.replace(/^.*\((.*)\)$/, "$1")})`;

async function rollout(client: KubeApiClient, opts: ScenarioOptions, repoURL: string): Promise<void> {
  opts.reporter.phase("RollingSync ApplicationSet guestbook: dev, then qa (maxUpdate 0), then prod (maxUpdate 10%)");
  const t0 = performance.now();
  await client.create(resources.ApplicationSets, guestbookAppSet(opts.namespace, repoURL, opts.namespacePrefix));
  const doneSteps = new Set<number>();
  const synced = new Set<number>();
  let last = t0;
  await watch(client, opts, "the rollout", async (view) => {
    for (const step of view.steps) {
      if (doneSteps.has(step.index) || step.apps.length === 0 || step.counts.Healthy < step.apps.length) continue;
      doneSteps.add(step.index);
      const now = performance.now();
      opts.stopwatch.record(`rollout ${stepName(step)}`, now - last);
      last = now;
      opts.reporter.note(`${stepName(step)} is Healthy: ${step.apps.map((a) => a.name).join(", ")}`);
    }
    const manual = stepAwaitingManualSync(view);
    if (manual !== undefined && !synced.has(manual.index)) {
      synced.add(manual.index);
      await syncByHand(client, opts, manual);
    }
    return rolloutComplete(view) && doneSteps.size === view.steps.filter((s) => s.apps.length > 0).length;
  });
  opts.stopwatch.record("rollout (total)", performance.now() - t0);
  opts.reporter.note("Rollout completed: every Application is Synced and Healthy, in step order.");
}

/** Starts a sync of each Application of `step` the way `argocd app sync NAME` does: it writes `operation`. */
async function syncByHand(client: KubeApiClient, opts: ScenarioOptions, step: StepView): Promise<void> {
  const names = step.apps.map((a) => a.name);
  opts.reporter.note(
    `${stepName(step)} has maxUpdate 0: the controller never syncs it, a person does.\n` +
      `  Syncing it for you, as \`argocd app sync ${names.join(" ")}\` would (it writes .operation on each Application).`,
  );
  for (const name of names) {
    const app = await client.get<KubeObject & Application>(resources.Applications, { namespace: opts.namespace, name });
    const operation = {
      initiatedBy: { username: "admin" },
      sync: {
        revision: app.spec.source?.targetRevision ?? "HEAD",
        syncOptions: app.spec.syncPolicy?.syncOptions ?? [],
        syncStrategy: { hook: {} },
      },
      retry: {},
    };
    await client.patch(resources.Applications, { namespace: opts.namespace, name }, { type: "merge", body: { operation } });
  }
}

async function reverseDeletion(client: KubeApiClient, opts: ScenarioOptions): Promise<void> {
  opts.reporter.phase("Reverse deletion: kubectl delete applicationset guestbook (last step first)");
  const order: string[] = [];
  await opts.stopwatch.time("reverse deletion", async () => {
    await client.delete(resources.ApplicationSets, { namespace: opts.namespace, name: APPSET });
    await watch(client, opts, "the Reverse deletion", (view) => {
      for (const step of view.steps)
        for (const row of step.apps)
          if ((row.status === "Deleting" || row.status === "Deleted") && !order.includes(row.name)) order.push(row.name);
      return Promise.resolve(!view.appSetPresent && view.total > 0 && view.deleted === view.total);
    });
  });
  opts.reporter.note(`Reverse deletion completed; deleted in this order: ${order.join(", ")}`);
}

async function watchUntilAborted(client: KubeApiClient, opts: ScenarioOptions): Promise<void> {
  let hinted = false;
  await watch(
    client,
    opts,
    "Ctrl-C",
    (view) => {
      if (!hinted) opts.reporter.note(opts.keep?.(view) ?? "");
      hinted = true;
      return Promise.resolve(false);
    },
    Number.POSITIVE_INFINITY,
  ).catch((err: unknown) => {
    if (!opts.signal.aborted) throw err;
  });
}

function withLogTail(err: unknown, controller: DemoController | undefined): unknown {
  if (controller === undefined || (err as { name?: string }).name === "AbortError") return err;
  const tail = readLog(controller.logPath)
    .filter((l) => l["level"] === "warning" || l["level"] === "error" || l["level"] === "fatal")
    .slice(-5)
    .map((l) => `  ${JSON.stringify(l)}`);
  if (tail.length === 0 || !(err instanceof Error)) return err;
  err.message += `\nThe controller's last warnings and errors:\n${tail.join("\n")}`;
  return err;
}
