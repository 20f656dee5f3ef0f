/**
 * SCM services as the controller process builds them from its flags (src/cli/scm.ts), for tests
 * that check what the flags do on the wire. Their Kubernetes client points at no server: the
 * generators these tests run read no Secret.
 */
import { scmServices } from "../../../src/cli/scm.js";
import { parseConfig } from "../../../src/config/index.js";
import { KubeApiClient } from "../../../src/kube/index.js";
import type { ScmServices } from "../../../src/scm/services.js";

/** Makes the controller's SCM services; `close` releases their Kubernetes client. */
export class ControllerScm {
  private readonly kube = KubeApiClient.fromOptions({ server: "http://127.0.0.1:1" });

  /** The services for these controller flags (the environment empty). */
  services(flags: readonly string[] = []): ScmServices {
    const parsed = parseConfig(flags, {});
    if (parsed.kind !== "config") throw new Error(`flags refused: ${JSON.stringify(parsed)}`);
    return scmServices(parsed.config, {}, this.kube);
  }

  close(): Promise<void> {
    return this.kube.transport.close();
  }
}
