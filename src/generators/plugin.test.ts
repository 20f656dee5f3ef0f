import { describe, expect, it } from "vitest";
import { appSet, context } from "../../test/unit/generators/builders.js";
import { encodeSecretData, type PluginGenerator, type Secret } from "../api/index.js";
import { pluginGenerator } from "./plugin.js";

// The requests to a real plugin server, their replies and their time limits are tested in
// test/integration/generators/plugin.test.ts.

const secret = (name: string, data: Record<string, string>): Secret => ({ metadata: { name }, data: encodeSecretData(data) });

/** Ports whose fetch fails the test: every case here is decided before any request. */
function ports(cm: Record<string, string>, secrets: Secret[] = [secret("argocd-secret", { "plugin.token": " tok-123 \n" })]) {
  return {
    configMaps: {
      getConfigMapData: (name: string) =>
        name === "my-plugin" ? Promise.resolve(cm) : Promise.reject(new Error(`configmaps "${name}" not found`)),
    },
    secrets: { getSecret: (name: string) => Promise.resolve(secrets.find((s) => s.metadata.name === name)) },
    fetch: (url: string): Promise<Response> => Promise.reject(new Error(`unexpected request to ${url}`)),
  };
}

const spec: PluginGenerator = { configMapRef: { name: "my-plugin" }, input: { parameters: { team: "blue", count: 2 } } };

describe("the Plugin generator before any request", () => {
  it.each<{ name: string; cm: Record<string, string>; error: string }>([
    // name; ConfigMap entries over a valid baseUrl and token; expected error
    {
      name: "a missing baseUrl is refused",
      cm: { baseUrl: "" },
      error: "error getting plugin from generator: error fetching ConfigMap: baseUrl not found in ConfigMap",
    },
    {
      name: "a missing token is refused",
      cm: { token: "" },
      error: "error getting plugin from generator: error fetching ConfigMap: token not found in ConfigMap",
    },
    {
      name: "a token not referencing a secret is refused",
      cm: { token: "plain" },
      error:
        "error getting plugin from generator: error fetching Secret token: token is empty, or does not reference a secret key starting with '$': plain",
    },
    {
      name: "a token in a Secret that does not exist is refused",
      cm: { token: "$nope:key" },
      error: 'error getting plugin from generator: error fetching Secret token: error fetching secret /nope: Secret "nope" not found',
    },
    {
      name: "a bad requestTimeout is refused",
      cm: { requestTimeout: "soon" },
      error: "error getting plugin from generator: error set requestTimeout : ",
    },
  ])("$name", async (row) => {
    const run = pluginGenerator.generate(
      spec,
      appSet([]),
      context(ports({ baseUrl: "http://plugin.invalid", token: "$plugin.token", ...row.cm })),
    );
    await expect(run).rejects.toMatchObject({
      reason: "ApplicationGenerationFromParamsError",
      message: expect.stringContaining(row.error),
    });
  });

  it("asks for a requeue after 30 minutes unless told otherwise", () => {
    expect(pluginGenerator.requeueAfterMs(spec, context().settings)).toBe(1_800_000);
    expect(pluginGenerator.requeueAfterMs({ ...spec, requeueAfterSeconds: 60 }, context().settings)).toBe(60_000);
  });
});
