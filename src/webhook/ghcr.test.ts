// GitHub container registry `package` events: what is accepted, ignored or refused, and which OCI
// generators a pushed tag refreshes (Argo CD v3.6's registry webhook).
import { describe, expect, it } from "vitest";
import { appSet } from "../../test/unit/generators/builders.js";
import { signed, TEST_SECRETS } from "../../test/support/webhook-payloads.js";
import type { ApplicationSetGenerator } from "../api/index.js";
import { affectedGenerator, tagFollows } from "./match.js";
import { receive } from "./receive.js";
import type { WebhookEvent } from "./types.js";

function packagePayload(over: { action?: string; type?: string; owner?: string; name?: string; tag?: string } = {}) {
  return {
    action: over.action ?? "published",
    package: {
      name: over.name ?? "Platform-Apps",
      package_type: over.type ?? "CONTAINER",
      owner: { login: over.owner ?? "Acme" },
      package_version: { container_metadata: { tag: { name: over.tag ?? "1.4.0" } } },
    },
  };
}

function verdictOf(payload: unknown) {
  const r = signed("github", "package", payload);
  return receive({ method: "POST", headers: r.headers, body: r.body }, TEST_SECRETS);
}

describe("receive: GHCR package events", () => {
  it("turns a published container version into a registry event, the repository lower-cased", () => {
    expect(verdictOf(packagePayload())).toEqual({
      ok: true,
      provider: "ghcr",
      event: { kind: "registry", provider: "ghcr", repository: "ghcr.io/acme/platform-apps", tag: "1.4.0" },
    });
  });

  it.each([
    { name: "another action", payload: packagePayload({ action: "updated" }), reason: "package action updated" },
    { name: "an npm package", payload: packagePayload({ type: "npm" }), reason: "package type npm" },
    { name: "a version without a tag", payload: packagePayload({ tag: "" }), reason: "no tag for repository Acme/Platform-Apps" },
  ])("acknowledges and ignores $name", ({ payload, reason }) => {
    expect(verdictOf(payload)).toMatchObject({ ok: true, event: { kind: "ignored", provider: "ghcr", reason } });
  });

  it("refuses a package event with a wrong signature, and a body that is not JSON", () => {
    const r = signed("github", "package", packagePayload(), { github: "not-the-secret" });
    expect(receive({ method: "POST", headers: r.headers, body: r.body }, TEST_SECRETS)).toMatchObject({
      ok: false,
      status: 401,
      provider: "ghcr",
    });
    expect(verdictOf("not json")).toMatchObject({ ok: false, status: 400, message: "the body of the GitHub package event is not JSON" });
  });
});

describe("tagFollows (Argo CD's CompareRevisions)", () => {
  it.each([
    ["1.4.0", "1.4.0", true],
    ["1.4.0", "^1.0.0", true],
    ["2.0.0", "^1.0.0", false],
    ["latest", "latest", true],
    ["latest", "^1.0.0", false],
    ["1.4.0", "stable", false],
    ["1.4.0", ">=1.2.0 <2.0.0", true],
  ])("tag %s, revision %s → %s", (tag, revision, want) => {
    expect(tagFollows(tag, revision)).toBe(want);
  });
});

describe("affectedGenerator: registry events", () => {
  const event: WebhookEvent = { kind: "registry", provider: "ghcr", repository: "ghcr.io/acme/platform-apps", tag: "1.4.0" };
  const oci = (repoURL: string, revision: string) => ({ oci: { repoURL, revision, directories: [{ path: "*" }] } });

  it.each<{ name: string; gens: ApplicationSetGenerator[]; want: string | undefined }>([
    {
      name: "the same repository, any case, a trailing slash",
      gens: [oci("oci://GHCR.io/Acme/Platform-Apps/", "1.4.0")],
      want: "generators[0].oci",
    },
    { name: "a constraint the tag meets", gens: [oci("oci://ghcr.io/acme/platform-apps", "~1.4")], want: "generators[0].oci" },
    { name: "a constraint the tag does not meet", gens: [oci("oci://ghcr.io/acme/platform-apps", "^2.0.0")], want: undefined },
    { name: "another repository", gens: [oci("oci://ghcr.io/acme/other", "1.4.0")], want: undefined },
    {
      name: "an OCI child of a matrix",
      gens: [{ matrix: { generators: [{ list: { elements: [] } }, oci("oci://ghcr.io/acme/platform-apps", "*")] } }],
      want: "generators[0].matrix.generators[1].oci",
    },
    { name: "a Git generator", gens: [{ git: { repoURL: "https://github.com/acme/platform-apps", revision: "HEAD" } }], want: undefined },
  ])("$name", ({ gens, want }) => {
    expect(affectedGenerator(appSet(gens), event)).toBe(want);
  });
});
