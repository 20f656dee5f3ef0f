/**
 * The operator's commands that no test can run here (no container engine, no registry, no cluster
 * of the reader's): those of README.md ("Try it on your cluster") and docs/migrate.md (the dry run
 * and the removal of SpecWarning conditions). What can be checked without running them is checked:
 * the image they build is the one deploy/ and the chart name, the Helm value they set exists, the
 * controller's flags parse, and the JSON patch tests the entry it removes.
 */
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { parseConfig } from "../../../src/config/index.js";
import { readRepoFile } from "../deploy/generated.js";
import { docParts, type FencedBlock } from "./markdown.js";
import { splitCommands } from "./shell.js";

const TESTED_HERE = "test/unit/docs/operator-commands.test.ts";

/** The shell blocks of `page` whose marker names this test. */
function blocksTestedHere(page: string): FencedBlock[] {
  return docParts(readRepoFile(page)).filter(
    (p): p is FencedBlock => p.type === "code" && p.marker?.kind === "tested-by" && p.marker.args[0] === TESTED_HERE,
  );
}

/** The image of the controller's Deployment in deploy/base: `appset:0.1.0`. */
function baseImage(): { name: string; tag: string } {
  const image = /^\s*image:\s*(\S+)\s*$/m.exec(readRepoFile("deploy/base/deployment.yaml"))![1]!;
  const [name, tag] = image.split(":");
  return { name: name!, tag: tag! };
}

describe("README.md: try it on your cluster", () => {
  const commands = blocksTestedHere("README.md").flatMap((b) => splitCommands(b.text));

  it("builds and pushes the image under the tag deploy/ names, from the Dockerfile at the root", () => {
    const { name, tag } = baseImage();
    const build = commands.find((c) => c.words[0] === "docker" && c.words[1] === "build")!;
    const push = commands.find((c) => c.words[0] === "docker" && c.words[1] === "push")!;
    expect(build.words.at(-1)).toBe(".");
    const built = build.words[build.words.indexOf("-t") + 1]!;
    expect(built.split("/").at(-1)).toBe(`${name}:${tag}`);
    expect(push.words[2]).toBe(built);
    expect(readRepoFile("Dockerfile")).toMatch(/org\.opencontainers\.image\.version="([^"]+)"/);
  });

  it("sets the image deploy/ names with kustomize edit set image", () => {
    const { name, tag } = baseImage();
    const edit = commands.find((c) => c.words[0] === "kustomize")!;
    expect(edit.words.slice(0, 3)).toEqual(["kustomize", "edit", "set"]);
    const [from, to] = edit.words[4]!.split("=");
    expect(from).toBe(name);
    expect(to!.split("/").at(-1)).toBe(`${name}:${tag}`);
  });

  it("sets a Helm value the chart has, and the chart's tag is deploy/'s", () => {
    const helm = commands.find((c) => c.words[0] === "helm")!;
    const set = helm.words[helm.words.indexOf("--set") + 1]!;
    expect(set).toMatch(/^applicationSet\.image\.repository=/);
    const values = parse(readRepoFile("deploy/helm/appset/values.yaml")) as { applicationSet: { image: { repository: string } } };
    expect(values.applicationSet.image.repository).toBe(baseImage().name);
    expect(readRepoFile("deploy/helm/appset/Chart.yaml")).toContain(`appVersion: "${baseImage().tag}"`);
  });
});

describe("docs/migrate.md", () => {
  const [dryRun, cleanup] = blocksTestedHere("docs/migrate.md");

  it("runs the dry run with flags the controller takes, without a warning", () => {
    const [cmd] = splitCommands(dryRun!.text);
    const args = cmd!.words.slice(cmd!.words.indexOf("controller") + 1);
    expect(args).toContain("--dry-run");
    const res = parseConfig(args, {});
    expect(res.kind).toBe("config");
    if (res.kind === "config") expect(res.warnings).toEqual([]);
    expect(parseConfig([...args, "--as", "system:serviceaccount:argocd:argocd-applicationset-controller"], {}).kind).toBe("config");
  });

  it("removes a SpecWarning condition only after testing that the entry at its index is one", () => {
    const text = cleanup!.text;
    expect(text).toContain("--subresource=status --type=json");
    const patch = /-p "(.*)"$/m.exec(text)![1]!.replace(/\\"/g, '"').replace(/\$i/g, "2");
    expect(JSON.parse(patch)).toEqual([
      { op: "test", path: "/status/conditions/2/type", value: "SpecWarning" },
      { op: "remove", path: "/status/conditions/2" },
    ]);
    expect(text).toContain('{{if eq $c.type "SpecWarning"}}{{$i}}{{end}}');
  });
});
