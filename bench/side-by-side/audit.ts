/**
 * The apiserver's audit log of `argoproj.io` requests, for `--audit`: which client (its User-Agent)
 * sent which verbs on which resources, per namespace (each run has a namespace of its own). The
 * log is written in batches, so it adds no wait to the requests measured.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
  - level: Metadata
    resources:
      - group: argoproj.io
  - level: None
`;

/** Writes the policy into `dir`; returns kube-apiserver's flags and where the log goes. */
export function auditFlags(dir: string): { flags: string[]; logPath: string } {
  const policy = join(dir, "audit-policy.yaml");
  const logPath = join(dir, "audit.log");
  writeFileSync(policy, POLICY);
  return {
    flags: [`--audit-policy-file=${policy}`, `--audit-log-path=${logPath}`, "--audit-log-mode=batch", "--audit-log-format=json"],
    logPath,
  };
}

interface AuditEvent {
  readonly stage?: string;
  readonly verb?: string;
  readonly userAgent?: string;
  readonly objectRef?: { readonly resource?: string; readonly subresource?: string; readonly namespace?: string };
  readonly responseStatus?: { readonly code?: number };
}

/** Prints the requests of the log, counted by namespace, client, verb, resource and response code. */
export function printAudit(logPath: string): void {
  const counts = new Map<string, number>();
  for (const line of readFileSync(logPath, "utf8").split("\n")) {
    if (line === "") continue;
    const e = JSON.parse(line) as AuditEvent;
    if (e.stage !== "ResponseComplete") continue;
    const ref = e.objectRef ?? {};
    const resource = ref.subresource === undefined ? (ref.resource ?? "") : `${ref.resource ?? ""}/${ref.subresource}`;
    const agent = (e.userAgent ?? "").split(" ")[0] ?? "";
    const key = [ref.namespace ?? "", agent, e.verb ?? "", resource, String(e.responseStatus?.code ?? "")].join(" | ");
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  console.log("\n| namespace | client | verb | resource | code | requests |\n| --- | --- | --- | --- | --- | --- |");
  for (const [key, n] of [...counts].sort(([a], [b]) => (a < b ? -1 : 1))) console.log(`| ${key} | ${String(n)} |`);
}
