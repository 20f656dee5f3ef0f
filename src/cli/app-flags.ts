/**
 * The flags of `appset sync APP` and `appset diff APP` as data (see appset-flags.ts): their
 * parser, `--help` and shell completion are built from them. Pure.
 */
import { HELP, KUBE_FLAGS, type CommandSpec, type FlagSpec } from "./appset-flags.js";

/** The default of `sync --timeout`. */
export const DEFAULT_SYNC_TIMEOUT = "5m";

const APP_NAMESPACE: FlagSpec = {
  name: "namespace",
  short: "n",
  value: "NS",
  help: "the Application's namespace (default: the context's, else argocd)",
};

/** `appset sync` and `appset diff`. */
export const APP_COMMANDS: readonly CommandSpec[] = [
  {
    name: "sync",
    args: "APP",
    summary: "ask the sync engine to sync an Application now (writes a sync operation, as argocd app sync does) and wait for it",
    flags: [
      APP_NAMESPACE,
      { name: "revision", value: "REV", help: "the revision to sync (default: the source's targetRevision)" },
      { name: "prune", help: "delete the live resources Git no longer has" },
      { name: "dry-run", help: "go through the sync without changing the cluster" },
      {
        name: "resource",
        value: "GROUP:KIND:NAME",
        multiple: true,
        help: "sync only this resource (repeatable; NAME may be NAMESPACE/NAME; GROUP is empty for core kinds)",
      },
      {
        name: "sync-option",
        value: "KEY=VALUE",
        multiple: true,
        help: "a sync option, e.g. ServerSideApply=true (repeatable; replaces the Application's syncOptions)",
      },
      { name: "force", help: "replace resources that cannot be patched (the strategy's force)" },
      { name: "async", help: "do not wait for the operation to finish" },
      { name: "timeout", value: "DURATION", help: `the longest wait, a Go duration (default ${DEFAULT_SYNC_TIMEOUT})` },
      ...KUBE_FLAGS,
      HELP,
    ],
  },
  {
    name: "diff",
    args: "APP",
    summary: "the sync engine's comparison of an Application's manifests with the live objects, as a unified diff per resource",
    flags: [
      APP_NAMESPACE,
      {
        name: "exit-code",
        value: "BOOL",
        values: ["true", "false"],
        help: "exit 1 when there is a difference (default true; false: exit 0 even then)",
      },
      ...KUBE_FLAGS,
      HELP,
    ],
  },
];
