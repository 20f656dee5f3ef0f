/**
 * `appset generate`: renders the Applications of an ApplicationSet file offline, without a
 * controller, like `argocd appset generate`. Cluster Secrets come from `--clusters FILE` (Secrets
 * as YAML or JSON: several documents, a List, or an array; `data` base64 or `stringData`) or from
 * the current kubeconfig's cluster with `--from-cluster`; the implicit local cluster is there as
 * in the controller. Git generators read real repositories (a path, a file:// URL or a remote URL),
 * with credentials from repository Secrets in the same sources. Output: the Applications sorted by
 * name, as YAML documents or (`-o json`) a JSON array; the controller's spec warnings on stderr
 * (docs/controller.md#spec-warnings); on failure (including the controller's name validation: an
 * empty or duplicate name), the error on stderr and exit 1.
 */
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { parseArgs } from "node:util";
import { yaml } from "../yaml.js";
import { isRecord, parseApplicationSet, type ApplicationSet } from "../api/index.js";
import { SystemClock } from "../clock/index.js";
import { kubeEnvironment, type Env } from "../config/index.js";
import { specWarnings } from "../controller/spec-warnings.js";
import { validateApplicationNames, validationMessage } from "../controller/validate.js";
import { errorMessage } from "../errors.js";
import { offlineOciReader } from "./oci.js";
import { offlineGitReader } from "./git.js";
import { credentialsFromSecrets, gitCacheDir } from "../git/index.js";
import { createGeneratorRegistry, DEFAULT_GENERATOR_SETTINGS, type GeneratorPorts } from "../generators/index.js";
import { generateApplications, type RenderedApplication } from "../generators/applications.js";
import { portsFromKubeReader, portsFromObjects, type ObjectPorts } from "../generators/object-ports.js";
import { KubeApiClient, loadKubeConfig, type KubeObject } from "../kube/index.js";
import { TemplateEngine } from "../template/index.js";

const USAGE = `Usage: appset generate -f FILE [flags]

Renders the Applications an ApplicationSet generates, sorted by name.

Flags:
  -f, --file FILE            the ApplicationSet (YAML or JSON; "-" reads stdin)
  -o, --output FORMAT        yaml (default) or json
      --clusters FILE        cluster and repository Secrets (YAML/JSON documents, a List or an array)
      --objects FILE         other objects the generators read (ConfigMaps, Secrets, decision resources)
      --from-cluster         read Secrets, ConfigMaps and resources from the current kubeconfig's cluster
      --namespace NS         the Argo CD namespace (default: the ApplicationSet's, else "argocd")
      --git-cache DIR        where fetched repositories are cached
      --new-git-file-globbing  doublestar globbing for Git files generators
      --max-nesting-depth N  deepest matrix/merge nesting accepted (default ${String(DEFAULT_GENERATOR_SETTINGS.maxNestingDepth)})
`;

/** The process surroundings the command uses (injected, so tests run it in-process). */
export interface GenerateIO {
  out(s: string): void;
  err(s: string): void;
  readonly env: Env;
  /** What relative repository paths are resolved against (default: the process's working directory). */
  readonly cwd?: string;
  readStdin?(): Promise<string>;
}

class UsageError extends Error {}

/** Reads Kubernetes objects from YAML or JSON text: documents, Lists, or arrays. */
export function parseObjects(text: string): KubeObject[] {
  const out: KubeObject[] = [];
  const add = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(add);
    else if (isRecord(v) && Array.isArray(v["items"]) && typeof v["kind"] === "string" && v["kind"].endsWith("List"))
      v["items"].forEach(add);
    else if (isRecord(v)) out.push(v);
  };
  for (const doc of yaml().parseAllDocuments(text)) {
    if (doc.errors.length > 0) throw new Error(doc.errors[0]!.message);
    add(doc.toJS());
  }
  return out;
}

async function readText(path: string, io: GenerateIO): Promise<string> {
  if (path === "-") {
    if (io.readStdin === undefined) throw new UsageError("reading stdin is not supported here");
    return io.readStdin();
  }
  return readFile(path, "utf8");
}

/** The flags of `appset generate` (node:util parseArgs options; the shell completion lists them too). */
export const GENERATE_OPTIONS = {
  file: { type: "string", short: "f" },
  output: { type: "string", short: "o", default: "yaml" },
  clusters: { type: "string" },
  objects: { type: "string" },
  "from-cluster": { type: "boolean", default: false },
  namespace: { type: "string" },
  "git-cache": { type: "string" },
  "new-git-file-globbing": { type: "boolean", default: false },
  "max-nesting-depth": { type: "string" },
  help: { type: "boolean", short: "h", default: false },
} as const;

function parseFlags(args: readonly string[]) {
  const { values } = parseArgs({
    args: [...args],
    options: GENERATE_OPTIONS,
    strict: true,
  });
  if (values.output !== "yaml" && values.output !== "json") throw new UsageError(`unknown output format "${values.output}"`);
  const depth =
    values["max-nesting-depth"] === undefined ? DEFAULT_GENERATOR_SETTINGS.maxNestingDepth : Number(values["max-nesting-depth"]);
  if (!Number.isInteger(depth) || depth < 1) throw new UsageError("--max-nesting-depth must be a positive integer");
  return { ...values, depth };
}

type Flags = ReturnType<typeof parseFlags>;

/**
 * The file as Argo CD's CLI reads it into Go structs: a Git generator's `revision` is a plain
 * string there, so an omitted one is "" (which resolves to HEAD), not an error. (On a cluster the
 * CRD requires it.) Matrix and merge children are walked too.
 */
export function withGoZeroRevisions(o: unknown): unknown {
  if (Array.isArray(o)) return o.map(withGoZeroRevisions);
  if (!isRecord(o)) return o;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
    out[k] =
      k === "git" && isRecord(v) && v["revision"] === undefined
        ? { ...(withGoZeroRevisions(v) as Record<string, unknown>), revision: "" }
        : withGoZeroRevisions(v);
  }
  return out;
}

async function loadAppSets(flags: Flags, io: GenerateIO): Promise<ApplicationSet[]> {
  if (flags.file === undefined) throw new UsageError("-f FILE is required");
  const objects = parseObjects(await readText(flags.file, io)).filter((o) => o.kind === undefined || o.kind === "ApplicationSet");
  if (objects.length === 0) throw new Error(`${flags.file}: no ApplicationSet found`);
  return objects.map((o) => {
    const res = parseApplicationSet(withGoZeroRevisions(o));
    if (!res.ok) throw res.error;
    return res.value;
  });
}

function currentNamespace(env: Env): string | undefined {
  const kc = loadKubeConfig({ kind: "default", env: kubeEnvironment(env) });
  return kc.getContextObject(kc.getCurrentContext())?.namespace;
}

async function objectPorts(flags: Flags, namespace: string, io: GenerateIO): Promise<ObjectPorts> {
  if (flags["from-cluster"])
    return portsFromKubeReader(KubeApiClient.fromConfig({ kind: "default", env: kubeEnvironment(io.env) }), namespace);
  const objects: KubeObject[] = [];
  for (const f of [flags.clusters, flags.objects]) if (f !== undefined) objects.push(...parseObjects(await readText(f, io)));
  return portsFromObjects(objects, namespace);
}

function toOutput(apps: RenderedApplication[], format: string): string {
  if (format === "json") return `${JSON.stringify(apps, null, 2)}\n`;
  return apps.map((a) => yaml().stringify(a, { lineWidth: 0 })).join("---\n");
}

async function render(flags: Flags, io: GenerateIO): Promise<string> {
  const appSets = await loadAppSets(flags, io);
  const clock = new SystemClock();
  const engine = new TemplateEngine({ now: () => clock.now(), clock: () => clock.now() });
  const registry = createGeneratorRegistry();
  const cacheDir = flags["git-cache"] ?? gitCacheDir("", tmpdir());
  const all: RenderedApplication[] = [];
  for (const appSet of appSets) {
    const namespace =
      flags.namespace ?? appSet.metadata.namespace ?? (flags["from-cluster"] ? currentNamespace(io.env) : undefined) ?? "argocd";
    const objects = await objectPorts(flags, namespace, io);
    const credentials = credentialsFromSecrets(await objects.allSecrets());
    const ports: GeneratorPorts = {
      ...objects,
      git: offlineGitReader({ env: io.env, clock, cacheDir, credentials, baseDir: io.cwd ?? process.cwd() }),
      oci: offlineOciReader(io.env, credentials),
      fetch,
    };
    const settings = { ...DEFAULT_GENERATOR_SETTINGS, maxNestingDepth: flags.depth, newGitFileGlobbing: flags["new-git-file-globbing"] };
    const apps = await generateApplications(appSet, { ctx: { ports, settings, clock }, registry, engine });
    const invalid = validateApplicationNames(appSet, apps);
    if (invalid.size > 0) throw new Error(validationMessage(invalid));
    // Offline there is no controller flag to know: RollingSync is taken as enabled.
    for (const w of specWarnings(appSet, { apps, progressiveSyncs: true }))
      io.err(`appset generate: warning: ApplicationSet ${appSet.metadata.name ?? ""}: ${w.message} (${w.reason})\n`);
    all.push(...apps);
  }
  all.sort((a, b) => ((a.metadata.name ?? "") < (b.metadata.name ?? "") ? -1 : (a.metadata.name ?? "") > (b.metadata.name ?? "") ? 1 : 0));
  return toOutput(all, flags.output);
}

/** Runs `appset generate ARGS`; resolves to the exit code (0 ok, 1 generation failed, 2 usage). */
export async function generateCommand(args: readonly string[], io: GenerateIO): Promise<number> {
  let flags: Flags;
  try {
    flags = parseFlags(args);
    if (flags.help) {
      io.out(USAGE);
      return 0;
    }
    io.out(await render(flags, io));
    return 0;
  } catch (err) {
    if (err instanceof UsageError || (isRecord(err) && typeof err["code"] === "string" && err["code"].startsWith("ERR_PARSE_ARGS"))) {
      io.err(`appset generate: ${errorMessage(err)}\n\n${USAGE}`);
      return 2;
    }
    io.err(`appset generate: ${errorMessage(err)}\n`);
    return 1;
  }
}
