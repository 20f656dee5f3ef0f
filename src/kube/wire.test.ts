import { RequestContext } from "./request-context.js";
import { describe, expect, it } from "vitest";
import { headerLines, repeatsAName } from "./wire.js";

function context(headers: Record<string, string>): RequestContext {
  const ctx = new RequestContext("https://apiserver:6443/api/v1/namespaces", "GET");
  for (const [name, value] of Object.entries(headers)) ctx.setHeaderParam(name, value);
  return ctx;
}

describe("headerLines", () => {
  it("keeps repeated extra headers as separate lines, in order, after the context's", () => {
    const lines = headerLines(context({ Accept: "application/json", Authorization: "Bearer t" }), [
      ["Impersonate-User", "alice"],
      ["Impersonate-Group", "first"],
      ["Impersonate-Group", "second"],
    ]);
    expect(lines).toEqual([
      "Accept",
      "application/json",
      "Authorization",
      "Bearer t",
      "Impersonate-User",
      "alice",
      "Impersonate-Group",
      "first",
      "Impersonate-Group",
      "second",
      "Accept-Encoding",
      "gzip",
    ]);
  });

  it("lets an extra header replace the context's of the same name, whatever its case", () => {
    const lines = headerLines(context({ "Impersonate-User": "from-kubeconfig", "user-agent": "client-node" }), [
      ["User-Agent", "argocd-applicationset-controller/v0.1.0 (linux/amd64)"],
      ["Impersonate-User", "alice"],
      ["Accept-Encoding", "identity"],
    ]);
    expect(lines).toEqual([
      "User-Agent",
      "argocd-applicationset-controller/v0.1.0 (linux/amd64)",
      "Impersonate-User",
      "alice",
      "Accept-Encoding",
      "identity",
    ]);
  });
});

describe("repeatsAName", () => {
  it("finds a header named twice, case-insensitively", () => {
    expect(repeatsAName(["Impersonate-Group", "a", "impersonate-group", "b"])).toBe(true);
    expect(repeatsAName(["Impersonate-Group", "a", "Impersonate-User", "a"])).toBe(false);
    expect(repeatsAName([])).toBe(false);
  });
});
