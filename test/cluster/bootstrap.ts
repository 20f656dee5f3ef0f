/**
 * What a fresh control plane needs before tests use it: the project's CRDs (established), and a
 * KWOK-managed node that is Ready and schedulable.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { httpCall, waitFor } from "./http.js";

/** Where and how to reach the apiserver. */
export interface ApiAccess {
  server: string;
  token: string;
}

type Obj = {
  metadata?: { name?: string };
  spec?: { taints?: { key: string }[] };
  status?: { conditions?: { type: string; status: string }[] };
};

async function getJson(api: ApiAccess, path: string): Promise<Obj | undefined> {
  const r = await httpCall("GET", `${api.server}${path}`, { token: api.token });
  if (r.status === 404) return undefined;
  if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${r.body}`);
  return JSON.parse(r.body) as Obj;
}

async function createJson(api: ApiAccess, path: string, body: unknown): Promise<void> {
  const r = await httpCall("POST", `${api.server}${path}`, { token: api.token, body });
  if (r.status !== 201 && r.status !== 200) throw new Error(`POST ${path}: ${r.status} ${r.body}`);
}

/** Creates every CRD found in `dir` (files named `*-crd.yaml`) and waits until each is Established. */
export async function installCrds(api: ApiAccess, dir: string): Promise<string[]> {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith("-crd.yaml"))
    .sort();
  const base = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
  const crds = files
    .flatMap((file) => parseAllDocuments(readFileSync(join(dir, file), "utf8")).map((doc) => doc.toJS() as Obj | null))
    .filter((crd): crd is Obj & { metadata: { name: string } } => crd?.metadata?.name !== undefined);
  await Promise.all(
    crds.map(async (crd) => {
      await createJson(api, base, crd);
      await waitFor(
        `CRD ${crd.metadata.name} Established`,
        async () => {
          const live = await getJson(api, `${base}/${crd.metadata.name}`);
          return live?.status?.conditions?.some((c) => c.type === "Established" && c.status === "True") ? true : undefined;
        },
        { intervalMs: 100 },
      );
    }),
  );
  return crds.map((crd) => crd.metadata.name);
}

/** Creates a node that KWOK manages (annotation `kwok.x-k8s.io/node: fake`), without taints. */
export async function createKwokNode(api: ApiAccess, name: string): Promise<void> {
  await createJson(api, "/api/v1/nodes", {
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name,
      annotations: { "node.alpha.kubernetes.io/ttl": "0", "kwok.x-k8s.io/node": "fake" },
      labels: {
        "beta.kubernetes.io/arch": "amd64",
        "beta.kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "kubernetes.io/role": "agent",
        "node-role.kubernetes.io/agent": "",
        type: "kwok",
      },
    },
    status: {
      allocatable: { cpu: "64", memory: "256Gi", pods: "1000" },
      capacity: { cpu: "64", memory: "256Gi", pods: "1000" },
    },
  });
}

/**
 * Waits until the node reports Ready and, when the node-lifecycle controller runs, until the
 * `node.kubernetes.io/not-ready` taint it starts with is gone.
 */
export async function waitForNodeReady(api: ApiAccess, name: string, expectTaintRemoval: boolean): Promise<void> {
  await waitFor(
    `node ${name} Ready`,
    async () => {
      const node = await getJson(api, `/api/v1/nodes/${name}`);
      const ready = node?.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;
      const tainted = (node?.spec?.taints ?? []).some((t) => t.key.startsWith("node.kubernetes.io/not-ready"));
      return ready && !(expectTaintRemoval && tainted) ? true : undefined;
    },
    { timeoutMs: 90_000 },
  );
}
