import { describe, expect, it } from "vitest";
import { buildEnv, envsubst } from "./envsubst.js";

const env = [
  { name: "ARGOCD_APP_NAME", value: "web" },
  { name: "A", value: "1" },
];

describe("$VAR substitution (Go's os.Expand with Argo CD's mapping)", () => {
  it.each([
    { s: "plain", want: "plain" },
    { s: "$ARGOCD_APP_NAME-x", want: "web-x" },
    { s: "${ARGOCD_APP_NAME}x", want: "webx" },
    { s: "$UNKNOWN.", want: "." },
    { s: "cost: $$5", want: "cost: $5" },
    { s: "trailing $", want: "trailing $" },
    { s: "a $. b", want: "a $. b" },
    { s: "bad ${A", want: "bad A" },
    { s: "empty ${}x", want: "empty x" },
    { s: "$1st", want: "st" },
    { s: "${A}${A}", want: "11" },
  ])("$s", ({ s, want }) => {
    expect(envsubst(s, env)).toBe(want);
  });

  it("builds Argo CD's variables with the short revisions", () => {
    const got = buildEnv({
      appName: "ns_web",
      namespace: "prod",
      project: "default",
      revision: "0123456789abcdef",
      repoURL: "https://git/x",
      path: "apps/web",
      targetRevision: "HEAD",
    });
    expect(Object.fromEntries(got.map((e) => [e.name, e.value]))).toEqual({
      ARGOCD_APP_NAME: "ns_web",
      ARGOCD_APP_NAMESPACE: "prod",
      ARGOCD_APP_PROJECT_NAME: "default",
      ARGOCD_APP_REVISION: "0123456789abcdef",
      ARGOCD_APP_REVISION_SHORT: "0123456",
      ARGOCD_APP_REVISION_SHORT_8: "01234567",
      ARGOCD_APP_SOURCE_REPO_URL: "https://git/x",
      ARGOCD_APP_SOURCE_PATH: "apps/web",
      ARGOCD_APP_SOURCE_TARGET_REVISION: "HEAD",
    });
  });
});
