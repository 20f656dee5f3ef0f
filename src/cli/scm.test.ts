import { describe, expect, it } from "vitest";
import { parseConfig, type Config } from "../config/index.js";
import { FakeKubeClient } from "../kube/index.js";
import { namespacedObjects, scmServices } from "./scm.js";

const SECRET = { group: "", version: "v1", plural: "secrets", kind: "Secret", namespaced: true } as const;
const CONFIGMAP = { group: "", version: "v1", plural: "configmaps", kind: "ConfigMap", namespaced: true } as const;

function config(...argv: string[]): Config {
  const res = parseConfig(argv, {});
  if (res.kind !== "config") throw new Error(`not a config: ${JSON.stringify(res)}`);
  return res.config;
}

describe("namespacedObjects", () => {
  const kube = new FakeKubeClient();
  kube.seed(SECRET, { apiVersion: "v1", kind: "Secret", metadata: { name: "gh", namespace: "team-a" }, data: { token: Buffer.from("s3cret").toString("base64") } });
  kube.seed(CONFIGMAP, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "ca", namespace: "team-a" }, data: { "ca.crt": "PEM" } });
  const objects = namespacedObjects(kube);

  it("reads a Secret of the ApplicationSet's namespace and decodes it", async () => {
    const secret = await objects.getSecret("team-a", "gh");
    expect(secret?.metadata.name).toBe("gh");
    expect(secret?.data?.["token"]).toBe(Buffer.from("s3cret").toString("base64"));
  });

  it("answers undefined for a Secret or ConfigMap that does not exist, in that namespace or any other", async () => {
    expect(await objects.getSecret("team-b", "gh")).toBeUndefined();
    expect(await objects.getConfigMapData("team-a", "nope")).toBeUndefined();
  });

  it("returns a ConfigMap's data", async () => {
    expect(await objects.getConfigMapData("team-a", "ca")).toEqual({ "ca.crt": "PEM" });
  });
});

describe("scmServices", () => {
  it("carries the SCM flags and the provider token variables into the settings", () => {
    const scm = scmServices(
      config("--enable-scm-providers=false", "--allowed-scm-providers=https://git.example.test", "--token-ref-strict-mode"),
      { GITHUB_TOKEN: "gh-token", GITEA_TOKEN: "" },
      new FakeKubeClient(),
    );
    expect(scm.settings).toMatchObject({
      enabled: false,
      allowedProviders: ["https://git.example.test"],
      tokenRefStrictMode: true,
      envTokens: { github: "gh-token" },
    });
  });

  it("uses Argo CD's defaults without flags", () => {
    expect(scmServices(config(), {}, new FakeKubeClient()).settings).toMatchObject({
      enabled: true,
      allowedProviders: [],
      tokenRefStrictMode: false,
      envTokens: {},
    });
  });
});
