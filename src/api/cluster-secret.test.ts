import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FIXTURES, loadFixture } from "../../test/fixtures/load.js";
import { decodeClusterSecret, encodeSecretData, isClusterSecret, parseSecret, secretValue, splitNamespaces, type Secret } from "./index.js";

function fixtureSecret(): Secret {
  const res = parseSecret(loadFixture(FIXTURES.clusterSecret));
  if (!res.ok) throw res.error;
  return res.value;
}

function secretWith(values: Record<string, string>): Secret {
  return { metadata: { name: "c", namespace: "argocd" }, data: encodeSecretData(values) };
}

describe("decodeClusterSecret", () => {
  it("decodes every data key of the example cluster Secret", () => {
    const res = decodeClusterSecret(fixtureSecret());
    expect(res).toEqual({
      ok: true,
      value: {
        name: "mycluster.example.com",
        server: "https://mycluster.example.com",
        project: "my-project",
        namespaces: ["guestbook", "staging"],
        clusterResources: true,
        shard: 3,
        config: {
          bearerToken: "<authentication token>",
          tlsClientConfig: { insecure: false, caData: "<base64 encoded certificate>" },
        },
        labels: { "argocd.argoproj.io/secret-type": "cluster", staging: "true" },
        annotations: { "example.com/region": "eu-west-1" },
        secretName: "mycluster-secret",
      },
    });
  });

  it.each<{ name: string; values: Record<string, string>; expected: object }>([
    // values: the data keys (before base64); expected: the fields of the decoded cluster checked
    { name: "an empty Secret", values: {}, expected: { name: "", server: "", namespaces: [], clusterResources: false, config: {} } },
    { name: "clusterResources other than true", values: { clusterResources: "True" }, expected: { clusterResources: false } },
    { name: "a blank config", values: { config: "  " }, expected: { config: {} } },
  ])("decodes $name", ({ values, expected }) => {
    const res = decodeClusterSecret(secretWith(values));
    expect(res.ok).toBe(true);
    if (res.ok) expect(res.value).toMatchObject(expected);
  });

  it("leaves shard out when it is not an integer", () => {
    const res = decodeClusterSecret(secretWith({ shard: "two" }));
    expect(res.ok && !("shard" in res.value)).toBe(true);
  });

  it.each([
    { name: "config that is not JSON", config: "{not json", message: "config is invalid: not valid JSON" },
    { name: "config with a wrongly typed field", config: '{"bearerToken": 5}', message: "config is invalid: bearerToken: " },
  ])("fails on $name with a message naming the Secret", ({ config, message }) => {
    const res = decodeClusterSecret(secretWith({ config }));
    expect(res.ok).toBe(false);
    if (!res.ok) expect(res.error.message).toContain(`cluster Secret argocd/c ${message}`);
  });

  it("prefers stringData over data, as the apiserver does on write", () => {
    const secret: Secret = { metadata: {}, data: encodeSecretData({ name: "old" }), stringData: { name: "new" } };
    expect(secretValue(secret, "name")).toBe("new");
  });

  it("round-trips any string through encodeSecretData and secretValue", () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        expect(secretValue(secretWith({ k: s }), "k")).toBe(s);
      }),
    );
  });
});

describe("isClusterSecret", () => {
  it.each([
    { name: "the cluster secret-type label", labels: { "argocd.argoproj.io/secret-type": "cluster" }, expected: true },
    { name: "another secret-type", labels: { "argocd.argoproj.io/secret-type": "repository" }, expected: false },
    { name: "no labels", labels: undefined, expected: false },
  ])("answers $expected for $name", ({ labels, expected }) => {
    expect(isClusterSecret({ metadata: labels === undefined ? {} : { labels } })).toBe(expected);
  });
});

describe("splitNamespaces", () => {
  it.each([
    { name: "an absent value", value: undefined, expected: [] },
    { name: "an empty value", value: "", expected: [] },
    { name: "spaces and empty entries", value: " a, ,b ,", expected: ["a", "b"] },
  ])("splits $name", ({ value, expected }) => {
    expect(splitNamespaces(value)).toEqual(expected);
  });
});
