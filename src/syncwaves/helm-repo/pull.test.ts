import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { helmAccess } from "./access.js";
import { pullArgs, redactHelm, treeBytes, type ChartPull } from "./pull.js";

const pull = (over: Partial<ChartPull> = {}): ChartPull => ({
  helm: "helm",
  repoURL: "https://charts.example.com/stable",
  chart: "web",
  version: "1.2.3",
  access: helmAccess("https://charts.example.com/stable", undefined, undefined, {}),
  passCredentials: false,
  timeoutMs: 1000,
  env: {},
  ...over,
});

describe("helm pull's arguments", () => {
  it("follow Argo CD's order, then --untar", () => {
    const creds = { username: "u", password: "p", insecure: true, tlsClientCertData: "C", tlsClientCertKey: "K" };
    const access = helmAccess("https://charts.example.com/stable", creds, "/certs/charts.example.com", {});
    expect(pullArgs(pull({ access, passCredentials: true }), "/dest", { cert: "/t/c", key: "/t/k" })).toEqual([
      "pull",
      "--destination",
      "/dest",
      "--version",
      "1.2.3",
      "--username",
      "u",
      "--password",
      "p",
      "--insecure-skip-tls-verify",
      "--repo",
      "https://charts.example.com/stable",
      "web",
      "--ca-file",
      "/certs/charts.example.com",
      "--cert-file",
      "/t/c",
      "--key-file",
      "/t/k",
      "--pass-credentials",
      "--untar",
    ]);
  });

  it("leave out what the repository does not have", () => {
    expect(pullArgs(pull(), "/dest", {})).toEqual([
      "pull",
      "--destination",
      "/dest",
      "--version",
      "1.2.3",
      "--repo",
      pull().repoURL,
      "web",
      "--untar",
    ]);
  });

  it("are masked in errors as Argo CD masks them", () => {
    expect(redactHelm("`helm pull --username bob --password hunter2 --repo x` failed")).toBe(
      "`helm pull --username ****** --password ****** --repo x` failed",
    );
  });
});

describe("a Helm repository's access", () => {
  it("takes the Secret's proxy, else the environment's for the URL's scheme", () => {
    expect(helmAccess("https://h", { proxy: "http://p:3128", noProxy: "a" }, undefined, { HTTPS_PROXY: "http://e" })).toMatchObject({
      proxy: "http://p:3128",
      noProxy: "a",
    });
    expect(helmAccess("https://h", undefined, undefined, { https_proxy: "http://e", NO_PROXY: "n" })).toMatchObject({
      proxy: "http://e",
      noProxy: "n",
    });
    expect(helmAccess("http://h", undefined, undefined, { HTTPS_PROXY: "http://e" })).toMatchObject({ proxy: "" });
  });
});

describe("the size of an unpacked chart", () => {
  it("counts the regular files below it, nested ones too, and not what links point at", async () => {
    const dir = await mkdtemp(join(tmpdir(), "appset-chart-size-"));
    try {
      await mkdir(join(dir, "web", "templates"), { recursive: true });
      await writeFile(join(dir, "web", "Chart.yaml"), "x".repeat(30));
      await writeFile(join(dir, "web", "templates", "cm.yaml"), "y".repeat(70));
      await symlink("/etc/hostname", join(dir, "web", "link"));
      expect(await treeBytes(dir, 1000)).toBe(100);
      expect(await treeBytes(dir, 10)).toBeGreaterThan(10);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
