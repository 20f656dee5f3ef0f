/**
 * From an ApplicationSet to the Applications it describes
 * (docs/templates.md#rendering-around-the-template): generate the parameter sets, render the
 * effective template for each (then the templatePatch), force the ApplicationSet's namespace, and
 * sort by name. Pure apart from what the generators' ports read; used by `appset generate` and,
 * later, the controller's planner.
 */
import { GROUP_VERSION, Kind, type ApplicationSet } from "../api/index.js";
import { renderApplication, renderTemplatePatch, type Json, type TemplateEngine } from "../template/index.js";
import { generateParams } from "./generate.js";
import type { GeneratorRegistry } from "./registry.js";
import { templateMode, type GeneratorContext } from "./types.js";

/** A rendered Application as plain JSON. */
export interface RenderedApplication {
  apiVersion: string;
  kind: string;
  metadata: { name?: string; namespace?: string; [k: string]: Json | undefined };
  spec: Json;
}

/** What {@link generateApplications} needs. */
export interface ApplicationsOptions {
  readonly ctx: Omit<GeneratorContext, "depth" | "renderer">;
  readonly registry: GeneratorRegistry;
  readonly engine: TemplateEngine;
}

/**
 * The Applications of an ApplicationSet, sorted by name. Rejects with a GeneratorError
 * (reason ApplicationGenerationFromParamsError) or a template error (RenderTemplateParamsError).
 */
export async function generateApplications(appSet: ApplicationSet, opts: ApplicationsOptions): Promise<RenderedApplication[]> {
  const generated = await generateParams(appSet, { ...opts.ctx, renderer: opts.engine }, opts.registry);
  const mode = templateMode(appSet);
  const renderOpts = {
    goTemplate: mode.goTemplate,
    goTemplateOptions: mode.options,
    preserveResourcesOnDeletion: appSet.spec.syncPolicy?.preserveResourcesOnDeletion === true,
  };
  const apps: RenderedApplication[] = [];
  const turns = new EventLoopTurns(opts.ctx.clock, opts.ctx.signal);
  for (const g of generated) {
    const template = g.template as unknown as { [key: string]: Json };
    for (const params of g.params) {
      await turns.maybeYield();
      let app = renderApplication(opts.engine, template, params, renderOpts);
      if (appSet.spec.templatePatch !== undefined)
        app = renderTemplatePatch(opts.engine, app, appSet.spec.templatePatch, { params, opts: renderOpts });
      const metadata = { ...(app["metadata"] as Record<string, Json>) };
      if (appSet.metadata.namespace !== undefined) metadata["namespace"] = appSet.metadata.namespace;
      else delete metadata["namespace"];
      apps.push({ apiVersion: GROUP_VERSION, kind: Kind.Application, metadata, spec: app["spec"] ?? {} });
    }
  }
  return apps.sort((a, b) => compareNames(a.metadata.name ?? "", b.metadata.name ?? ""));
}

/** Longest stretch of rendering between two turns of the event loop, in ms. */
const RENDER_SLICE_MS = 20;

/**
 * Gives the event loop a turn once {@link RENDER_SLICE_MS} of rendering has passed, so probes,
 * watches and other ApplicationSets keep flowing while many parameter sets render; then stops when
 * the reconcile's signal has aborted (its deadline passed or the process is stopping).
 */
class EventLoopTurns {
  private since: number;

  constructor(
    private readonly clock: ApplicationsOptions["ctx"]["clock"],
    private readonly signal: AbortSignal | undefined,
  ) {
    this.since = clock.now();
  }

  async maybeYield(): Promise<void> {
    if (this.clock.now() - this.since < RENDER_SLICE_MS) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.signal?.throwIfAborted();
    this.since = this.clock.now();
  }
}

function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
