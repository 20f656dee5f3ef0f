/**
 * Builders for the generators' tests: ApplicationSets, cluster Secrets and a generator context
 * over real ports. Real Git repositories are in test/integration/support/git-repos.ts.
 */
import { encodeSecretData, type ApplicationSet, type ApplicationSetGenerator, type Secret } from "../../../src/api/index.js";
import { SystemClock } from "../../../src/clock/index.js";
import {
  DEFAULT_GENERATOR_SETTINGS,
  type GeneratorContext,
  type GeneratorPorts,
  type GeneratorSettings,
} from "../../../src/generators/index.js";
import { TemplateEngine } from "../../../src/template/index.js";

/** An ApplicationSet with the given generators and template mode. */
export function appSet(
  generators: ApplicationSetGenerator[],
  opts: { goTemplate?: boolean; goTemplateOptions?: string[]; template?: ApplicationSet["spec"]["template"] } = {},
): ApplicationSet {
  return {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "ApplicationSet",
    metadata: { name: "test", namespace: "argocd" },
    spec: {
      ...(opts.goTemplate === undefined ? {} : { goTemplate: opts.goTemplate }),
      ...(opts.goTemplateOptions === undefined ? {} : { goTemplateOptions: opts.goTemplateOptions }),
      generators,
      template: opts.template ?? {
        metadata: { name: "{{name}}" },
        spec: { project: "default", destination: { server: "{{server}}" }, source: { repoURL: "https://example.com/repo.git", path: "x" } },
      },
    },
  };
}

/** A cluster Secret with base64 `data`. */
export function clusterSecret(
  name: string,
  server: string,
  opts: { labels?: Record<string, string>; annotations?: Record<string, string>; project?: string; secretName?: string } = {},
): Secret {
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: {
      name: opts.secretName ?? `${name}-secret`,
      namespace: "argocd",
      labels: { "argocd.argoproj.io/secret-type": "cluster", ...opts.labels },
      ...(opts.annotations === undefined ? {} : { annotations: opts.annotations }),
    },
    data: encodeSecretData({ name, server, ...(opts.project === undefined ? {} : { project: opts.project }) }),
  };
}

/** A generator context with a real template engine and the system clock. */
export function context(ports: GeneratorPorts = {}, settings: Partial<GeneratorSettings> = {}): GeneratorContext {
  return {
    ports,
    settings: { ...DEFAULT_GENERATOR_SETTINGS, ...settings },
    renderer: new TemplateEngine({ now: () => 0 }),
    clock: new SystemClock(),
    depth: 0,
  };
}
