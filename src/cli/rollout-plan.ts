/**
 * `appset rollout plan`: previews a RollingSync rollout offline. It renders the Applications of an
 * ApplicationSet file (cluster and repository Secrets from `--clusters FILE`, Git generators read
 * real repositories, as `appset generate` does) and prints each step with the Applications it
 * selects, the batches its maxUpdate allows, the Applications in no step, the deletion order and
 * the validation issues. Nothing is written anywhere.
 */
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { parseArgs } from "node:util";
import { isRecord, parseApplicationSet, type ApplicationSet, type ApplicationMatchExpression } from "../api/index.js";
import { SystemClock } from "../clock/index.js";
import { errorMessage } from "../errors.js";
import { offlineOciReader } from "./oci.js";
import { offlineGitReader } from "./git.js";
import { credentialsFromSecrets, gitCacheDir } from "../git/index.js";
import { createGeneratorRegistry, DEFAULT_GENERATOR_SETTINGS, type GeneratorPorts } from "../generators/index.js";
import { generateApplications } from "../generators/applications.js";
import { portsFromObjects } from "../generators/object-ports.js";
import type { KubeObject } from "../kube/index.js";
import { previewRollout, type RolloutPreview, type StepPreview } from "../progressivesync/index.js";
import { TemplateEngine } from "../template/index.js";
import { parseObjects, type GenerateIO } from "./generate.js";
import { parseRolloutPolicy, type RolloutPolicy } from "../api/rollout-policy.js";
import { describeStepRules, planSafety, PolicyFieldError, policyRules, type PlanSafety } from "./rollout-policy.js";

const USAGE = `Usage: appset rollout plan -f FILE [flags]

Previews the RollingSync rollout of an ApplicationSet: each step with the Applications it
selects, the batches maxUpdate allows, the Applications in no step, and the validation issues.

Flags:
  -f, --file FILE        the ApplicationSet (YAML or JSON; "-" reads stdin)
  -o, --output FORMAT    text (default) or json
      --clusters FILE    cluster and repository Secrets (YAML/JSON documents, a List or an array)
      --git-cache DIR    where fetched repositories are cached
      --policy FILE      a RolloutPolicy: print each step's rules and the rollback setting
`;

/** The process surroundings the command uses: the same as `appset generate`. */
export type RolloutIO = GenerateIO;

class UsageError extends Error {}

/** The flags of `appset rollout plan` (node:util parseArgs options; the shell completion lists them too). */
export const PLAN_OPTIONS = {
  file: { type: "string", short: "f" },
  output: { type: "string", short: "o", default: "text" },
  clusters: { type: "string" },
  "git-cache": { type: "string" },
  policy: { type: "string" },
  help: { type: "boolean", short: "h", default: false },
} as const;

function parseFlags(args: readonly string[]) {
  const { values, positionals } = parseArgs({
    args: [...args],
    options: PLAN_OPTIONS,
    allowPositionals: true,
    strict: true,
  });
  if (values.help) return { ...values, help: true };
  if (positionals[0] !== "plan" || positionals.length !== 1) throw new UsageError(`unknown subcommand "${positionals.join(" ")}"`);
  if (values.output !== "text" && values.output !== "json") throw new UsageError(`unknown output format "${values.output}"`);
  if (values.file === undefined) throw new UsageError("-f FILE is required");
  return values;
}

type Flags = ReturnType<typeof parseFlags>;

async function readText(path: string, io: RolloutIO): Promise<string> {
  if (path !== "-") return readFile(path, "utf8");
  if (io.readStdin === undefined) throw new UsageError("reading stdin is not supported here");
  return io.readStdin();
}

async function preview(appSet: ApplicationSet, objects: KubeObject[], flags: Flags, io: RolloutIO): Promise<RolloutPreview> {
  const clock = new SystemClock();
  const engine = new TemplateEngine({ now: () => clock.now(), clock: () => clock.now() });
  const object = portsFromObjects(objects, appSet.metadata.namespace ?? "argocd");
  const credentials = credentialsFromSecrets(await object.allSecrets());
  const cacheDir = flags["git-cache"] ?? gitCacheDir("", tmpdir());
  const ports: GeneratorPorts = {
    ...object,
    git: offlineGitReader({ env: io.env, clock, cacheDir, credentials, baseDir: io.cwd ?? process.cwd() }),
    oci: offlineOciReader(io.env, credentials),
    fetch,
  };
  const apps = await generateApplications(appSet, {
    ctx: { ports, settings: DEFAULT_GENERATOR_SETTINGS, clock },
    registry: createGeneratorRegistry(),
    engine,
  });
  return previewRollout(appSet, apps);
}

function describeExpression(e: ApplicationMatchExpression): string {
  return `${e.key ?? ""} ${e.operator ?? ""} [${(e.values ?? []).join(", ")}]`;
}

function describeLimit(s: StepPreview): string {
  const written = s.maxUpdate === null ? "unset" : String(s.maxUpdate);
  if (s.limit === null) return `maxUpdate ${written}: all at once`;
  if (s.limit === 0) return `maxUpdate ${written}: none, sync them by hand (later steps wait until they are Healthy)`;
  return `maxUpdate ${written}: ${String(s.limit)} at a time`;
}

function formatStep(s: StepPreview): string[] {
  const lines = [
    `Step ${String(s.step)}: ${s.matchExpressions.map(describeExpression).join(", ") || "(every Application)"}; ${describeLimit(s)}`,
  ];
  lines.push(`  Applications (${String(s.applications.length)}): ${s.applications.join(", ") || "none"}`);
  const extra = s.selects.filter((n) => !s.applications.includes(n));
  if (extra.length > 0) lines.push(`  Also waits for (selected by an earlier step): ${extra.join(", ")}`);
  s.batches.forEach((b, i) => lines.push(`  Batch ${String(i + 1)}: ${b.join(", ")}`));
  return lines;
}

/** Renders a preview as text, with each step's rules under `safety` when a policy was given. */
export function formatPreview(p: RolloutPreview, safety?: PlanSafety): string {
  const lines = [`ApplicationSet ${p.name}: ${p.strategy}`];
  if (p.note !== undefined) return [...lines, p.note, ""].join("\n");
  if (safety !== undefined) lines.push(`Rollout policy ${safety.policy}:`);
  p.steps.forEach((s, i) => {
    lines.push(...formatStep(s));
    const rules = safety?.steps[i];
    if (rules !== undefined) lines.push(describeStepRules(rules));
  });
  if (safety !== undefined) lines.push(safety.rollback);
  if (safety !== undefined && safety.unknownSteps.length > 0)
    lines.push(`Policy steps the ApplicationSet does not have (ignored): ${safety.unknownSteps.join(", ")}`);
  lines.push(`Applications in no step (never synced by the rollout): ${p.unassigned.join(", ") || "none"}`);
  if (p.deletionOrder !== null) lines.push(`Deletion order (Reverse, one at a time): ${p.deletionOrder.join(", ") || "none"}`);
  if (p.autosyncTurnedOff.length > 0) lines.push(`Automated sync turned off for: ${p.autosyncTurnedOff.join(", ")}`);
  lines.push(p.issues.length === 0 ? "Validation: Rolling Sync Configured correctly" : "Validation issues:");
  for (const i of p.issues) lines.push(`  ${i.kind}: ${i.message}`);
  return `${lines.join("\n")}\n`;
}

async function plan(flags: Flags, io: RolloutIO): Promise<string> {
  const docs = parseObjects(await readText(flags.file!, io)).filter((o) => o.kind === undefined || o.kind === "ApplicationSet");
  if (docs.length === 0) throw new Error(`${flags.file!}: no ApplicationSet found`);
  const objects = flags.clusters === undefined ? [] : parseObjects(await readText(flags.clusters, io));
  const policy = flags.policy === undefined ? undefined : await readPolicy(flags.policy, io);
  const previews: { preview: RolloutPreview; safety?: PlanSafety }[] = [];
  for (const doc of docs) {
    const res = parseApplicationSet(doc);
    if (!res.ok) throw res.error;
    const p = await preview(res.value, objects, flags, io);
    const safety =
      policy === undefined || p.note !== undefined
        ? undefined
        : planSafety(
            policy.policy,
            policy.resolved,
            p.steps.map((s) => s.applications.length),
          );
    previews.push({ preview: p, ...(safety === undefined ? {} : { safety }) });
  }
  if (flags.output === "json") {
    const json = previews.map((p) => (p.safety === undefined ? p.preview : { ...p.preview, safety: p.safety }));
    return `${JSON.stringify(json.length === 1 ? json[0] : json, null, 2)}\n`;
  }
  return previews.map((p) => formatPreview(p.preview, p.safety)).join("\n");
}

/** The RolloutPolicy of a file, its durations parsed; a bad field is an error naming the file and the field. */
async function readPolicy(path: string, io: RolloutIO): Promise<{ policy: RolloutPolicy; resolved: ReturnType<typeof policyRules> }> {
  const docs = parseObjects(await readText(path, io)).filter((o) => o.kind === "RolloutPolicy");
  if (docs.length !== 1) throw new Error(`${path}: ${docs.length === 0 ? "no RolloutPolicy found" : "more than one RolloutPolicy"}`);
  const res = parseRolloutPolicy(docs[0]);
  if (!res.ok) throw res.error;
  try {
    return { policy: res.value, resolved: policyRules(res.value) };
  } catch (err) {
    if (err instanceof PolicyFieldError)
      throw new PolicyFieldError(`${path}: RolloutPolicy ${res.value.metadata.name ?? ""}: ${err.message}`);
    throw err;
  }
}

/** Runs `appset rollout plan ARGS` (ARGS starting with "plan"); resolves to the exit code (0 ok, 1 failed, 2 usage). */
export async function rolloutPlanCommand(args: readonly string[], io: RolloutIO): Promise<number> {
  try {
    const flags = parseFlags(args);
    if (flags.help) {
      io.out(USAGE);
      return 0;
    }
    io.out(await plan(flags, io));
    return 0;
  } catch (err) {
    const usage =
      err instanceof UsageError || (isRecord(err) && typeof err["code"] === "string" && err["code"].startsWith("ERR_PARSE_ARGS"));
    io.err(usage ? `appset rollout: ${errorMessage(err)}\n\n${USAGE}` : `appset rollout: ${errorMessage(err)}\n`);
    return usage ? 2 : 1;
  }
}
