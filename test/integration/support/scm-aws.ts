/**
 * AWS CodeCommit, the Resource Groups Tagging API and STS as a local server answers them: the
 * JSON 1.1 protocol (`X-Amz-Target`) and STS's query protocol with XML answers (AssumeRole,
 * AssumeRoleWithWebIdentity), shaped as the AWS API references document them. Every request's
 * SigV4 signature is recomputed from what arrived on the wire (method, path, query, Host and the
 * other signed headers, body, whose hash must match `X-Amz-Content-Sha256`) with the secret of the
 * access key it names, by a SigV4 of the tests' own (test/support/sigv4.ts, held to AWS's test
 * suite), not by the AWS SDK's signer the controller signs with; a mismatch is refused as AWS refuses it (403
 * InvalidSignatureException).
 */
import { createHash } from "node:crypto";
import type { AwsCredentials, AwsCredentialSource } from "../../../src/scm/aws/client.js";
import { sigv4 } from "../../support/sigv4.js";
import type { FakeApi, Reply, Seen } from "./scm-server.js";

/** One repository of the fake account. */
export interface FakeRepo {
  readonly name: string;
  readonly defaultBranch?: string;
  readonly branches?: readonly string[];
  readonly tags?: Readonly<Record<string, string>>;
  /** Paths of files in the default branch (`deploy/app.yaml`). */
  readonly files?: readonly string[];
}

/** The fake account's state and knobs. */
export interface FakeAws {
  account: string;
  region: string;
  repos: FakeRepo[];
  /** Access keys the server knows (long-term and issued by AssumeRole). */
  keys: Map<string, AwsCredentials>;
  /** Page sizes of ListRepositories, ListBranches and GetResources. */
  pageSize: number;
  /** Roles AssumeRole grants. */
  roles: Set<string>;
  /** Web identity tokens AssumeRoleWithWebIdentity accepts. */
  webTokens: Set<string>;
  /** Lifetime of issued credentials (ms) and the server's notion of now. */
  lifetimeMs: number;
  now: () => number;
  issued: number;
}

/** Long-term credentials the fake account accepts. */
export const BASE_CREDS: AwsCredentials = { accessKeyId: "AKIAFAKEBASE", secretAccessKey: "base/secret+key" };

/** A credential source answering with fixed credentials (what the SDK's chain yields for static keys). */
export function staticCredentials(creds: AwsCredentials): AwsCredentialSource {
  return () => () => Promise.resolve(creds);
}

/** A fresh fake account. */
export function fakeAws(repos: FakeRepo[], now: () => number): FakeAws {
  return {
    account: "123456789012",
    region: "eu-west-1",
    repos,
    keys: new Map([[BASE_CREDS.accessKeyId, BASE_CREDS]]),
    pageSize: 1000,
    roles: new Set(),
    webTokens: new Set(),
    lifetimeMs: 900_000,
    now,
    issued: 0,
  };
}

/** The parts of a SigV4 `Authorization` header, or undefined when it is not one. */
function parseAuthorization(
  value: string | undefined,
): { accessKeyId: string; region: string; service: string; signedHeaders: string[]; signature: string } | undefined {
  const m =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/\d{8}\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(
      value ?? "",
    );
  if (m === null) return undefined;
  const [, accessKeyId = "", region = "", service = "", signed = "", signature = ""] = m;
  return { accessKeyId, region, service, signedHeaders: signed.split(";"), signature };
}

const header = (req: Seen, name: string): string => {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(",") : (v ?? "");
};

const INVALID_TOKEN: Reply = {
  status: 403,
  body: { __type: "UnrecognizedClientException", message: "The security token included in the request is invalid." },
};

/** The signature of `req` recomputed over the headers it says it signed. */
function recompute(req: Seen, creds: AwsCredentials, auth: { region: string; service: string; signedHeaders: string[] }): string {
  const headers = Object.fromEntries(auth.signedHeaders.map((h) => [h, header(req, h)]));
  return sigv4(
    { method: req.method, path: req.path, query: req.query.toString(), headers, body: req.body },
    {
      accessKeyId: creds.accessKeyId,
      secretAccessKey: creds.secretAccessKey,
      region: auth.region,
      service: auth.service,
      amzDate: header(req, "x-amz-date"),
    },
  ).signature;
}

/** Checks a request's signature; undefined when it holds, else the refusal. */
export function verifySignature(aws: FakeAws, req: Seen, service: string): Reply | undefined {
  const auth = parseAuthorization(header(req, "authorization"));
  const creds = auth === undefined ? undefined : aws.keys.get(auth.accessKeyId);
  if (auth === undefined || creds === undefined) return INVALID_TOKEN;
  if ((creds.sessionToken ?? "") !== header(req, "x-amz-security-token")) return INVALID_TOKEN;
  const required = ["host", "x-amz-date", "x-amz-content-sha256", ...(creds.sessionToken ? ["x-amz-security-token"] : [])];
  const bodyHash = createHash("sha256").update(req.body, "utf8").digest("hex");
  const ok =
    required.every((h) => auth.signedHeaders.includes(h)) &&
    header(req, "x-amz-content-sha256") === bodyHash &&
    auth.region === aws.region &&
    auth.service === service &&
    recompute(req, creds, auth) === auth.signature;
  return ok
    ? undefined
    : {
        status: 403,
        body: {
          __type: "InvalidSignatureException",
          message: "The request signature we calculated does not match the signature you provided.",
        },
      };
}

function page<T>(items: readonly T[], token: unknown, size: number): { items: T[]; next: string } {
  const start = typeof token === "string" && token !== "" ? Number(token) : 0;
  const end = start + size;
  return { items: items.slice(start, end), next: end < items.length ? String(end) : "" };
}

function repoOf(aws: FakeAws, name: unknown): FakeRepo | undefined {
  return aws.repos.find((r) => r.name === name);
}

function metadata(aws: FakeAws, r: FakeRepo): Record<string, unknown> {
  const host = `git-codecommit.${aws.region}.amazonaws.com`;
  return {
    accountId: aws.account,
    repositoryId: `${r.name}-0000-uuid`,
    repositoryName: r.name,
    ...(r.defaultBranch === undefined ? {} : { defaultBranch: r.defaultBranch }),
    lastModifiedDate: 1.7e9,
    creationDate: 1.6e9,
    cloneUrlHttp: `https://${host}/v1/repos/${r.name}`,
    cloneUrlSsh: `ssh://${host}/v1/repos/${r.name}`,
    Arn: `arn:aws:codecommit:${aws.region}:${aws.account}:${r.name}`,
  };
}

function getFolder(aws: FakeAws, input: Record<string, unknown>): Reply {
  const r = repoOf(aws, input["repositoryName"]);
  if (r === undefined)
    return {
      status: 400,
      body: { __type: "RepositoryDoesNotExistException", message: `${String(input["repositoryName"])} does not exist` },
    };
  const folder = String(input["folderPath"]).replace(/^\/+|\/+$/g, "");
  const under = (r.files ?? [])
    .filter((f) => folder === "" || f.startsWith(`${folder}/`))
    .map((f) => (folder === "" ? f : f.slice(folder.length + 1)));
  if (under.length === 0 && folder !== "")
    return { status: 400, body: { __type: "FolderDoesNotExistException", message: "The specified folder does not exist." } };
  const entry = (rel: string) => ({ absolutePath: `${folder === "" ? "" : `${folder}/`}${rel}`, relativePath: rel });
  const files = under.filter((f) => !f.includes("/")).map((f) => ({ ...entry(f), blobId: "b", fileMode: "NORMAL" }));
  const subFolders = [...new Set(under.filter((f) => f.includes("/")).map((f) => f.split("/")[0]!))].map((d) => ({
    ...entry(d),
    treeId: "t",
  }));
  return { body: { commitId: "c0ffee", folderPath: `/${folder}`, treeId: "t", files, subFolders, symbolicLinks: [], subModules: [] } };
}

function getResources(aws: FakeAws, input: Record<string, unknown>): Reply {
  const filters = (input["TagFilters"] ?? []) as Array<{ Key: string; Values?: string[] }>;
  const hit = aws.repos.filter((r) =>
    filters.every((f) => r.tags?.[f.Key] !== undefined && (f.Values === undefined || f.Values.includes(r.tags[f.Key]!))),
  );
  const size = Math.min(aws.pageSize, Number(input["ResourcesPerPage"] ?? 50));
  const p = page(hit, input["PaginationToken"], size);
  const list = p.items.map((r) => ({
    ResourceARN: `arn:aws:codecommit:${aws.region}:${aws.account}:${r.name}`,
    Tags: Object.entries(r.tags ?? {}).map(([Key, Value]) => ({ Key, Value })),
  }));
  return { body: { PaginationToken: p.next, ResourceTagMappingList: list } };
}

/** The JSON 1.1 operations by `X-Amz-Target`. */
function jsonOperation(aws: FakeAws, target: string, input: Record<string, unknown>): Reply {
  switch (target) {
    case "CodeCommit_20150413.ListRepositories": {
      const p = page(aws.repos, input["nextToken"], aws.pageSize);
      return {
        body: {
          repositories: p.items.map((r) => ({ repositoryName: r.name, repositoryId: `${r.name}-0000-uuid` })),
          ...(p.next === "" ? {} : { nextToken: p.next }),
        },
      };
    }
    case "CodeCommit_20150413.BatchGetRepositories": {
      const names = (input["repositoryNames"] ?? []) as string[];
      if (names.length > 100)
        return { status: 400, body: { __type: "MaximumRepositoryNamesExceededException", message: "too many names" } };
      const found = names.flatMap((n) => (repoOf(aws, n) ? [metadata(aws, repoOf(aws, n)!)] : []));
      return { body: { repositories: found, repositoriesNotFound: names.filter((n) => !repoOf(aws, n)), errors: [] } };
    }
    case "CodeCommit_20150413.ListBranches": {
      const r = repoOf(aws, input["repositoryName"]);
      if (r === undefined) return { status: 400, body: { __type: "RepositoryDoesNotExistException", message: "no such repository" } };
      const p = page(r.branches ?? [], input["nextToken"], aws.pageSize);
      return { body: { branches: p.items, ...(p.next === "" ? {} : { nextToken: p.next }) } };
    }
    case "CodeCommit_20150413.GetFolder":
      return getFolder(aws, input);
    case "ResourceGroupsTaggingAPI_20170126.GetResources":
      return getResources(aws, input);
    default:
      return { status: 400, body: { __type: "UnknownOperationException", message: target } };
  }
}

function assumeRole(aws: FakeAws, req: Seen): Reply {
  const form = new URLSearchParams(req.body);
  const role = form.get("RoleArn") ?? "";
  const action = form.get("Action") ?? "";
  if (action === "AssumeRoleWithWebIdentity" && !aws.webTokens.has(form.get("WebIdentityToken") ?? "")) {
    return {
      status: 400,
      text: "<ErrorResponse><Error><Type>Sender</Type><Code>InvalidIdentityToken</Code><Message>Incorrect token audience</Message></Error></ErrorResponse>",
    };
  }
  if (!["AssumeRole", "AssumeRoleWithWebIdentity"].includes(action) || form.get("Version") !== "2011-06-15")
    return { status: 400, text: "<ErrorResponse><Error><Code>InvalidAction</Code><Message>bad</Message></Error></ErrorResponse>" };
  if (!aws.roles.has(role)) {
    return {
      status: 403,
      text: `<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type><Code>AccessDenied</Code><Message>User is not authorized to perform: sts:AssumeRole on resource: ${role}</Message></Error><RequestId>r-${String(++aws.issued)}</RequestId></ErrorResponse>`,
    };
  }
  const n = ++aws.issued;
  const issued: AwsCredentials = {
    accessKeyId: `ASIATEMP${String(n)}`,
    secretAccessKey: `temp/secret/${String(n)}`,
    sessionToken: `token+${String(n)}/==`,
  };
  aws.keys.set(issued.accessKeyId, issued);
  const expiration = new Date(aws.now() + aws.lifetimeMs).toISOString();
  return {
    text: `<${action}Response xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><${action}Result><AssumedRoleUser><Arn>${role}/s</Arn><AssumedRoleId>ARO:s</AssumedRoleId></AssumedRoleUser><Credentials><AccessKeyId>${issued.accessKeyId}</AccessKeyId><SecretAccessKey>${issued.secretAccessKey}</SecretAccessKey><SessionToken>${issued.sessionToken ?? ""}</SessionToken><Expiration>${expiration}</Expiration></Credentials></${action}Result><ResponseMetadata><RequestId>r-${String(n)}</RequestId></ResponseMetadata></${action}Response>`,
    headers: { "Content-Type": "text/xml" },
  };
}

/** Serves the fake account on `api` (CodeCommit and Tagging at `/`, STS at `/sts/`). */
export function serveAws(api: FakeApi, aws: FakeAws): void {
  api.on("POST", "/", (req) => {
    const target = String(req.headers["x-amz-target"] ?? "");
    const refused = verifySignature(aws, req, target.startsWith("ResourceGroupsTaggingAPI") ? "tagging" : "codecommit");
    if (refused !== undefined) return refused;
    if (req.headers["content-type"] !== "application/x-amz-json-1.1")
      return { status: 400, body: { __type: "SerializationException", message: "bad content type" } };
    return jsonOperation(aws, target, JSON.parse(req.body) as Record<string, unknown>);
  });
  api.on("POST", "/sts/", (req) => {
    const unsigned = new URLSearchParams(req.body).get("Action") === "AssumeRoleWithWebIdentity";
    return (unsigned ? undefined : verifySignature(aws, req, "sts")) ?? assumeRole(aws, req);
  });
}
