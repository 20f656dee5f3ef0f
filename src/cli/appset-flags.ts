/**
 * The flags of `appset list`, `get`, `refresh` and `shards` as data: each command's own, from which its
 * parser (node:util parseArgs), its `--help` and the shell completion are built. Pure.
 */
import { DEFAULT_SHARD_GROUP } from "../shard/membership.js";

/** One flag. */
export interface FlagSpec {
  readonly name: string;
  readonly short?: string;
  /** The value's placeholder in the help; absent for a boolean. */
  readonly value?: string;
  /** The values it takes, when they are a fixed few (completed by the shell). */
  readonly values?: readonly string[];
  /** The flag may be given more than once (its values are a list). */
  readonly multiple?: boolean;
  readonly help: string;
}

/** One command: its arguments, one line on what it does, and its flags. */
export interface CommandSpec {
  readonly name: string;
  readonly args: string;
  readonly summary: string;
  readonly flags: readonly FlagSpec[];
}

/** The default of `refresh --timeout`. */
export const DEFAULT_REFRESH_TIMEOUT = "2m";

export const KUBE_FLAGS: readonly FlagSpec[] = [
  { name: "kubeconfig", value: "FILE", help: "the kubeconfig (default: $KUBECONFIG, else ~/.kube/config)" },
  { name: "context", value: "NAME", help: "the kubeconfig context to use" },
];
const NAMESPACE: FlagSpec = {
  name: "namespace",
  short: "n",
  value: "NS",
  help: "the ApplicationSet's namespace (default: the context's, else argocd)",
};
export const HELP: FlagSpec = { name: "help", short: "h", help: "print this help" };

/** `appset list`, `get`, `refresh` and `shards`. */
export const APPSET_COMMANDS: readonly CommandSpec[] = [
  {
    name: "list",
    args: "",
    summary: "list the ApplicationSets of a namespace (-A: of all) with their Applications' sync and health",
    flags: [
      NAMESPACE,
      { name: "all-namespaces", short: "A", help: "list the ApplicationSets of every namespace" },
      {
        name: "output",
        short: "o",
        value: "FORMAT",
        values: ["wide", "name", "json", "yaml"],
        help: "a table (default), wide (with sync policy, strategy and source), name, json or yaml",
      },
      ...KUBE_FLAGS,
      HELP,
    ],
  },
  {
    name: "get",
    args: "NAME",
    summary: "one ApplicationSet: its conditions and generated Applications (sync, health, RollingSync step)",
    flags: [
      NAMESPACE,
      {
        name: "output",
        short: "o",
        value: "FORMAT",
        values: ["wide", "json", "yaml"],
        help: "text (default), wide (with each Application's revision and RollingSync message), json or yaml",
      },
      ...KUBE_FLAGS,
      HELP,
    ],
  },
  {
    name: "refresh",
    args: "NAME",
    summary: "ask the controller to reconcile an ApplicationSet now, reading Git afresh",
    flags: [
      NAMESPACE,
      { name: "wait", short: "w", help: "wait until the controller has reconciled it (removed the annotation)" },
      { name: "timeout", value: "DURATION", help: `--wait: the longest wait, a Go duration (default ${DEFAULT_REFRESH_TIMEOUT})` },
      ...KUBE_FLAGS,
      HELP,
    ],
  },
  {
    name: "shards",
    args: "",
    summary: "the live members of a shard group (sharded replicas) and the ApplicationSets (or Applications) each owns",
    flags: [
      {
        name: "namespace",
        short: "n",
        value: "NS",
        help: "the controller's namespace, where its member Leases are (default: the context's, else argocd)",
      },
      { name: "group", value: "NAME", help: `the shard group (default ${DEFAULT_SHARD_GROUP}, the controller's --shard-group)` },
      {
        name: "all-namespaces",
        short: "A",
        help: "assign the ApplicationSets of every namespace (a controller with --applicationset-namespaces; --applications: the Applications), not only of --namespace",
      },
      { name: "applications", help: "assign the Applications instead of the ApplicationSets: the sharded sync engine's share" },
      {
        name: "output",
        short: "o",
        value: "FORMAT",
        values: ["wide", "json", "yaml"],
        help: "text (default), wide (every member Lease, with its name, renew time and status), json or yaml",
      },
      ...KUBE_FLAGS,
      HELP,
    ],
  },
];

/** The spec of `name`, among `specs`. */
export function commandSpec(name: string, specs: readonly CommandSpec[] = APPSET_COMMANDS): CommandSpec {
  const spec = specs.find((c) => c.name === name);
  if (spec === undefined) throw new Error(`no command ${name}`);
  return spec;
}

/** The options of node:util parseArgs for `spec`'s flags (every value a string). */
export function parseArgsOptions(spec: CommandSpec): Record<string, { type: "string" | "boolean"; short?: string; multiple?: boolean }> {
  return Object.fromEntries(
    spec.flags.map((f) => [
      f.name,
      {
        type: f.value === undefined ? "boolean" : "string",
        ...(f.short === undefined ? {} : { short: f.short }),
        ...(f.multiple === true ? { multiple: true } : {}),
      },
    ]),
  );
}

/** The flags as help lines, aligned as the other commands' are. */
export function flagLines(flags: readonly FlagSpec[]): string[] {
  const left = flags.map(
    (f) => `${f.short === undefined ? "    " : `-${f.short}, `}--${f.name}${f.value === undefined ? "" : ` ${f.value}`}`,
  );
  const width = Math.max(...left.map((l) => l.length));
  return flags.map((f, i) => `  ${left[i]!.padEnd(width)}  ${f.help}`);
}

/** The `--help` of `appset NAME`. */
export function commandUsage(spec: CommandSpec): string {
  const args = spec.args === "" ? "" : ` ${spec.args}`;
  return `Usage: appset ${spec.name}${args} [flags]\n\n${spec.summary[0]!.toUpperCase()}${spec.summary.slice(1)}.\n\nFlags:\n${flagLines(spec.flags).join("\n")}\n`;
}
