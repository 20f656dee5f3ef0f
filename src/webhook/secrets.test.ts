import { describe, expect, it } from "vitest";
import type { Secret } from "../api/index.js";
import { FakeClock } from "../clock/index.js";
import { cachedSettings, maxPayloadBytes, secretsFrom } from "./secrets.js";

function secret(data: Record<string, string>): Secret {
  const encoded = Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString("base64")]));
  return { apiVersion: "v1", kind: "Secret", metadata: { name: "argocd-secret", namespace: "argocd" }, data: encoded };
}

describe("secretsFrom", () => {
  it.each([
    { name: "no Secret configures nothing", s: undefined, out: {} },
    {
      name: "Argo CD's keys configure their providers, trimmed",
      s: secret({
        "webhook.github.secret": " gh \n",
        "webhook.gitlab.secret": "gl",
        "webhook.bitbucketserver.secret": "bbs",
        "webhook.bitbucket.uuid": "uuid",
        "webhook.gogs.secret": "gogs",
      }),
      out: { github: "gh", gitlab: "gl", bitbucketServer: "bbs", bitbucketUuid: "uuid", gitea: "gogs" },
    },
    {
      name: "webhook.gitea.secret wins over webhook.gogs.secret",
      s: secret({ "webhook.gitea.secret": "gitea", "webhook.gogs.secret": "gogs" }),
      out: { gitea: "gitea" },
    },
    { name: "an empty value configures nothing", s: secret({ "webhook.github.secret": "" }), out: {} },
    {
      name: "an Azure DevOps password alone still requires basic auth",
      s: secret({ "webhook.azuredevops.password": "p" }),
      out: { azureDevOps: { username: "", password: "p" } },
    },
  ])("$name", ({ s, out }) => {
    expect(secretsFrom(s)).toEqual(out);
  });
});

describe("maxPayloadBytes", () => {
  it.each([
    { name: "Argo CD's default of 50 MiB without argocd-cm", data: undefined, bytes: 50 * 1024 * 1024 },
    { name: "webhook.maxPayloadSizeMB in MiB", data: { "webhook.maxPayloadSizeMB": "2" }, bytes: 2 * 1024 * 1024 },
    { name: "the default for a value that is not a positive integer", data: { "webhook.maxPayloadSizeMB": "-1" }, bytes: 50 * 1024 * 1024 },
    { name: "the default for zero", data: { "webhook.maxPayloadSizeMB": "0" }, bytes: 50 * 1024 * 1024 },
  ])("is $name", ({ data, bytes }) => {
    expect(maxPayloadBytes(data)).toBe(bytes);
  });
});

describe("cachedSettings", () => {
  it("reads once per minute and keeps the last good reading when a read fails", async () => {
    const clock = new FakeClock(0);
    const reads: Array<Secret | Error> = [
      secret({ "webhook.github.secret": "one" }),
      new Error("apiserver down"),
      secret({ "webhook.github.secret": "two" }),
    ];
    const errors: unknown[] = [];
    let calls = 0;
    const get = cachedSettings({
      clock,
      onError: (e) => errors.push(e),
      read: () => {
        const r = reads[calls++]!;
        return r instanceof Error ? Promise.reject(r) : Promise.resolve({ secret: r, configMapData: { "webhook.maxPayloadSizeMB": "1" } });
      },
    });
    expect(await get()).toEqual({ secrets: { github: "one" }, maxPayloadBytes: 1024 * 1024 });
    expect((await get()).secrets).toEqual({ github: "one" });
    expect(calls).toBe(1);
    clock.advance(60_000);
    expect((await get()).secrets).toEqual({ github: "one" });
    expect(errors).toHaveLength(1);
    clock.advance(60_000);
    expect((await get()).secrets).toEqual({ github: "two" });
    expect(calls).toBe(3);
  });
});
