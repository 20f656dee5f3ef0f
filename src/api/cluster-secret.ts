/**
 * Argo CD cluster Secrets: a Secret labelled `argocd.argoproj.io/secret-type: cluster` whose data
 * keys describe one cluster (`name`, `server`, `config`, `namespaces`, `clusterResources`,
 * `project`, `shard`). Values are base64 in `data`; the helpers here decode them.
 */
import { z } from "zod";
import { Label, SecretType } from "./constants.js";
import { objectMetaSchema } from "./meta.js";
import { errorMessage } from "../errors.js";
import { ApiParseError, describeObject, parseWith, type ParseResult } from "./parse.js";

/** A core/v1 Secret, as much as cluster handling needs. */
export const secretSchema = z.looseObject({
  apiVersion: z.literal("v1").optional(),
  kind: z.literal("Secret").optional(),
  metadata: objectMetaSchema,
  type: z.string().optional(),
  data: z.record(z.string(), z.string()).optional(),
  stringData: z.record(z.string(), z.string()).optional(),
});
export type Secret = z.infer<typeof secretSchema>;

/** TLS settings of a cluster connection (base64 PEM in the `*Data` fields). */
export const tlsClientConfigSchema = z.looseObject({
  insecure: z.boolean().optional(),
  serverName: z.string().optional(),
  caData: z.string().optional(),
  certData: z.string().optional(),
  keyData: z.string().optional(),
});

/** The JSON in a cluster Secret's `config` key. */
export const clusterConfigSchema = z.looseObject({
  username: z.string().optional(),
  password: z.string().optional(),
  bearerToken: z.string().optional(),
  tlsClientConfig: tlsClientConfigSchema.optional(),
  awsAuthConfig: z.looseObject({}).optional(),
  execProviderConfig: z.looseObject({}).optional(),
  proxyUrl: z.string().optional(),
  disableCompression: z.boolean().optional(),
});
export type ClusterConfig = z.infer<typeof clusterConfigSchema>;

/** A cluster decoded from its Secret. */
export interface Cluster {
  /** `data.name` (may be empty). */
  readonly name: string;
  /** `data.server`, verbatim. */
  readonly server: string;
  /** `data.project`, or "" when unset. */
  readonly project: string;
  /** `data.namespaces` split on commas; empty means every namespace. */
  readonly namespaces: readonly string[];
  /** `data.clusterResources == "true"`. */
  readonly clusterResources: boolean;
  /** `data.shard` when it is an integer. */
  readonly shard?: number;
  /** The parsed `data.config` (an empty object when absent). */
  readonly config: ClusterConfig;
  /** The Secret's labels and annotations (cluster generator parameters and selectors). */
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  /** The Secret this cluster came from. */
  readonly secretName: string;
}

/** True when the Secret carries the cluster secret-type label. */
export function isClusterSecret(secret: Pick<Secret, "metadata">): boolean {
  return secret.metadata.labels?.[Label.SecretType] === SecretType.Cluster;
}

/** Decodes one base64 value of a Secret's `data` (`stringData` wins, as the apiserver does on write). */
export function secretValue(secret: Secret, key: string): string | undefined {
  const plain = secret.stringData?.[key];
  if (plain !== undefined) return plain;
  const encoded = secret.data?.[key];
  return encoded === undefined ? undefined : Buffer.from(encoded, "base64").toString("utf8");
}

/** Splits Argo CD's comma-separated `namespaces` value. */
export function splitNamespaces(value: string | undefined): string[] {
  if (value === undefined) return [];
  return value
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

function parseConfig(secret: Secret): ParseResult<ClusterConfig> {
  const raw = secretValue(secret, "config");
  const what = `cluster Secret ${secret.metadata.namespace ?? ""}/${secret.metadata.name ?? ""} config`;
  if (raw === undefined || raw.trim() === "") return { ok: true, value: {} };
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (err) {
    return { ok: false, error: new ApiParseError(what, [{ path: "", message: `not valid JSON: ${errorMessage(err)}` }]) };
  }
  return parseWith(clusterConfigSchema, json, what);
}

function parseShard(value: string | undefined): number | undefined {
  if (value === undefined || !/^-?\d+$/.test(value.trim())) return undefined;
  return Number.parseInt(value, 10);
}

/**
 * Decodes a cluster Secret. Fails (with an ApiParseError) only when `config` is not a JSON object
 * of the expected shape; every other key is optional.
 */
export function decodeClusterSecret(secret: Secret): ParseResult<Cluster> {
  const config = parseConfig(secret);
  if (!config.ok) return config;
  const shard = parseShard(secretValue(secret, "shard"));
  return {
    ok: true,
    value: {
      name: secretValue(secret, "name") ?? "",
      server: secretValue(secret, "server") ?? "",
      project: secretValue(secret, "project") ?? "",
      namespaces: splitNamespaces(secretValue(secret, "namespaces")),
      clusterResources: secretValue(secret, "clusterResources") === "true",
      ...(shard === undefined ? {} : { shard }),
      config: config.value,
      labels: secret.metadata.labels ?? {},
      annotations: secret.metadata.annotations ?? {},
      secretName: secret.metadata.name ?? "",
    },
  };
}

/** Base64-encodes string values into a Secret `data` map (for writing cluster Secrets). */
export function encodeSecretData(values: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(values)) out[k] = Buffer.from(v, "utf8").toString("base64");
  return out;
}

/** Parses a Secret read from the apiserver. Never throws. */
export function parseSecret(obj: unknown): ParseResult<Secret> {
  return parseWith(secretSchema, obj, describeObject("Secret", obj));
}
