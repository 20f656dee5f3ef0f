/**
 * The program's version (package.json's) and the User-Agent its Kubernetes and SCM requests carry.
 */
import { readFileSync } from "node:fs";
import { arch, platform } from "node:os";

/** The program name Argo CD's manifests and the argo-helm chart start the controller image with. */
export const ARGOCD_APPSET_PROGRAM = "argocd-applicationset-controller";

/** The version in package.json. */
export function version(): string {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
  return pkg.version;
}

/** Node's platform and architecture names as Go's GOOS and GOARCH spell them. */
const GOOS: Readonly<Record<string, string>> = { win32: "windows" };
const GOARCH: Readonly<Record<string, string>> = { x64: "amd64", ia32: "386", ppc64: "ppc64le" };

/**
 * client-go's default User-Agent shape, `<program>/<version> (<os>/<arch>)`, with Argo CD's program
 * name and this controller's version (docs/configuration.md#the-kubernetes-client).
 */
export function userAgent(program: string, v: string, platform: string, arch: string): string {
  return `${program}/v${v} (${GOOS[platform] ?? platform}/${GOARCH[arch] ?? arch})`;
}

/** The User-Agent of this process's requests, naming `program` (Argo CD's name of the process). */
export function processUserAgent(program: string): string {
  return userAgent(program, version(), platform(), arch());
}
