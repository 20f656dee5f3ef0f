import { describe, expect, it } from "vitest";
import { appSet } from "../../../test/unit/generators/builders.js";
import { harness } from "../../../test/unit/scm/support.js";
import { createScmProviderGenerator } from "../../generators/scm-provider.js";

// GitHub App authentication against a server checking the JWT is tested in
// test/integration/scm/auth-tls.test.ts.

describe("GitHub App authentication", () => {
  it("names a missing App Secret with Argo CD's message", async () => {
    const h = harness({ ports: { secrets: { getSecret: () => Promise.resolve(undefined) } } });
    await expect(
      createScmProviderGenerator(h.services).generate({ github: { organization: "acme", appSecretName: "nope" } }, appSet([]), h.ctx),
    ).rejects.toThrow("scm provider: error fetching Github app secret: no github app found for nope");
  });
});
