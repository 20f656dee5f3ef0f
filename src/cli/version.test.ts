import { describe, expect, it } from "vitest";
import { userAgent, version } from "./version.js";

describe("userAgent", () => {
  it("names the program, the version and Go's os/arch", () => {
    expect(userAgent("argocd-applicationset-controller", "0.1.0", "linux", "x64")).toBe(
      "argocd-applicationset-controller/v0.1.0 (linux/amd64)",
    );
    expect(userAgent("argocd-applicationset-controller", "1.2.3", "darwin", "arm64")).toBe(
      "argocd-applicationset-controller/v1.2.3 (darwin/arm64)",
    );
    expect(userAgent("p", "1.0.0", "win32", "ia32")).toBe("p/v1.0.0 (windows/386)");
  });

  it("reads the version from package.json", () => {
    expect(version()).toMatch(/^\d+\.\d+\.\d+/);
  });
});
