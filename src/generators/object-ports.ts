/**
 * Generator ports over Kubernetes objects: a fixed list (objects read from files, for
 * `appset generate` and tests) or a {@link KubeReader} (the API, for `appset generate
 * --from-cluster`; the controller will bring informer-backed ones). Only the Argo CD namespace's
 * objects are visible, as in the controller.
 */
import { isClusterSecret, isRecord, parseAppProject, parseSecret, type AppProject, type LabelSelector, type Secret } from "../api/index.js";
import type { KubeObject, KubeReader, ResourceDescriptor } from "../kube/index.js";
import { compileSelector } from "./selector.js";
import type { AppProjectReader, ClusterSecretLister, ConfigMapReader, DuckResource, DuckResourceLister, SecretReader } from "./types.js";

/** The object-backed ports. */
export interface ObjectPorts {
  readonly clusters: ClusterSecretLister;
  readonly configMaps: ConfigMapReader;
  readonly secrets: SecretReader;
  readonly resources: DuckResourceLister;
  /**
   * AppProjects. Absent for a fixed object list holding no AppProject at all (an offline preview
   * that models no projects), so the Git generator's project check is skipped there.
   */
  readonly projects?: AppProjectReader;
  /** Every Secret (repository credentials are looked up among them). */
  readonly allSecrets: () => Promise<Secret[]>;
}

const CORE_SECRET = { group: "", version: "v1", plural: "secrets", kind: "Secret", namespaced: true } as const;
const CORE_CONFIGMAP = { group: "", version: "v1", plural: "configmaps", kind: "ConfigMap", namespaced: true } as const;
const APP_PROJECT = { group: "argoproj.io", version: "v1alpha1", plural: "appprojects", kind: "AppProject", namespaced: true } as const;

/** An AppProject as read, or the parse failure thrown (a malformed project is an error, not "absent"). */
function toAppProject(obj: KubeObject): AppProject {
  const res = parseAppProject(obj);
  if (!res.ok) throw res.error;
  return res.value;
}

function toSecret(obj: KubeObject): Secret | undefined {
  const res = parseSecret(obj);
  return res.ok ? res.value : undefined;
}

function notFound(kind: string, name: string): Error {
  return new Error(`${kind.toLowerCase()}s "${name}" not found`);
}

function pluralMatches(obj: KubeObject, r: DuckResource): boolean {
  const apiVersion = r.group === "" ? r.version : `${r.group}/${r.version}`;
  const kind = (obj.kind ?? "").toLowerCase();
  return obj.apiVersion === apiVersion && [kind, `${kind}s`, `${kind}es`].includes(r.plural.toLowerCase());
}

function isAppProject(o: KubeObject): boolean {
  return o.kind === APP_PROJECT.kind && o.apiVersion === `${APP_PROJECT.group}/${APP_PROJECT.version}`;
}

function projectsFrom(local: readonly KubeObject[]): AppProjectReader {
  return {
    getAppProject: (name) => {
      const obj = local.find((o) => isAppProject(o) && o.metadata?.name === name);
      return obj === undefined ? Promise.resolve(undefined) : Promise.resolve().then(() => toAppProject(obj));
    },
  };
}

/**
 * Ports over a fixed list of objects (namespaces other than `namespace` are ignored, unset counts
 * as it). When the list holds no AppProject at all, there is no `projects` port.
 */
export function portsFromObjects(objects: readonly KubeObject[], namespace: string): ObjectPorts {
  const local = objects.filter((o) => (o.metadata?.namespace ?? namespace) === namespace);
  const secrets = local.filter((o) => o.kind === "Secret").flatMap((o) => toSecret(o) ?? []);
  const byName = (kind: string, name: string): KubeObject | undefined => local.find((o) => o.kind === kind && o.metadata?.name === name);
  return {
    clusters: { listClusterSecrets: () => Promise.resolve(secrets.filter(isClusterSecret)) },
    configMaps: {
      getConfigMapData: (name) => {
        const cm = byName("ConfigMap", name);
        if (cm === undefined) return Promise.reject(notFound("ConfigMap", name));
        return Promise.resolve(isRecord(cm["data"]) ? (cm["data"] as Record<string, string>) : {});
      },
    },
    secrets: { namespace, getSecret: (name) => Promise.resolve(secrets.find((s) => s.metadata.name === name)) },
    ...(objects.some(isAppProject) ? { projects: projectsFrom(local) } : {}),
    resources: {
      list: (r, select) => {
        const matcher = compileSelector(select.labelSelector, { strictValues: true, operatorNoun: "label" });
        return Promise.resolve(
          local.filter(
            (o) =>
              pluralMatches(o, r) && (select.name === undefined || o.metadata?.name === select.name) && matcher(o.metadata?.labels ?? {}),
          ),
        );
      },
    },
    allSecrets: () => Promise.resolve(secrets),
  };
}

/** A LabelSelector as the `labelSelector` query string. */
export function selectorString(sel: LabelSelector | undefined): string | undefined {
  if (sel === undefined) return undefined;
  const parts = Object.entries(sel.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`);
  for (const e of sel.matchExpressions ?? []) {
    const values = (e.values ?? []).join(",");
    if (e.operator === "In") parts.push(`${e.key} in (${values})`);
    else if (e.operator === "NotIn") parts.push(`${e.key} notin (${values})`);
    else if (e.operator === "Exists") parts.push(e.key);
    else if (e.operator === "DoesNotExist") parts.push(`!${e.key}`);
    else throw new Error(`"${e.operator}" is not a valid label selector operator`);
  }
  return parts.join(",");
}

function isNotFound(err: unknown): boolean {
  return isRecord(err) && err["reason"] === "NotFound";
}

/** Reads one object through the KubeReader and converts it; NotFound gives undefined, other failures reject. */
async function getOrUndefined<T>(
  reader: KubeReader,
  r: ResourceDescriptor,
  key: { namespace: string; name: string },
  convert: (o: KubeObject) => T | undefined,
): Promise<T | undefined> {
  let obj: KubeObject;
  try {
    obj = await reader.get(r, key);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
  return convert(obj);
}

/** Ports over a KubeReader (the apiserver, or an informer cache with the same shape). */
export function portsFromKubeReader(reader: KubeReader, namespace: string): ObjectPorts {
  const listSecrets = async (labelSelector: string): Promise<Secret[]> =>
    (await reader.list(CORE_SECRET, { namespace, labelSelector })).items.flatMap((o) => toSecret(o) ?? []);
  return {
    clusters: { listClusterSecrets: () => listSecrets("argocd.argoproj.io/secret-type=cluster") },
    configMaps: {
      getConfigMapData: async (name) => {
        const cm = await reader.get(CORE_CONFIGMAP, { namespace, name });
        return isRecord(cm["data"]) ? (cm["data"] as Record<string, string>) : {};
      },
    },
    secrets: { namespace, getSecret: (name) => getOrUndefined(reader, CORE_SECRET, { namespace, name }, toSecret) },
    projects: { getAppProject: (name) => getOrUndefined(reader, APP_PROJECT, { namespace, name }, toAppProject) },
    resources: {
      list: async (r, select) => {
        const resource: ResourceDescriptor = { ...r, kind: "", namespaced: true };
        const labelSelector = selectorString(select.labelSelector);
        const opts = {
          namespace,
          ...(select.name === undefined ? {} : { fieldSelector: `metadata.name=${select.name}` }),
          ...(labelSelector === undefined || labelSelector === "" ? {} : { labelSelector }),
        };
        return (await reader.list(resource, opts)).items;
      },
    },
    allSecrets: () => listSecrets("argocd.argoproj.io/secret-type in (repository,repo-creds)"),
  };
}
