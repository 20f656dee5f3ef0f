/**
 * The demo's command-line flags.
 */

/** The demo's flags. */
export interface DemoFlags {
  readonly keepCluster: boolean;
  readonly printKubeconfig: boolean;
}

/** Parses the demo's flags; unknown flags are an error. */
export function parseFlags(args: readonly string[]): DemoFlags {
  const known = new Set(["--keep-cluster", "--print-kubeconfig"]);
  const unknown = args.filter((a) => !known.has(a));
  if (unknown.length > 0) throw new Error(`unknown flag ${unknown.join(", ")}; the demo takes --keep-cluster and --print-kubeconfig`);
  return { keepCluster: args.includes("--keep-cluster"), printKubeconfig: args.includes("--print-kubeconfig") };
}
