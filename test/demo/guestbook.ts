/**
 * The demo's inputs: a local Git repository holding the guestbook manifests (a Deployment and a
 * Service, plain YAML), and the seed's RollingSync ApplicationSet over it (dev, then qa by hand,
 * then prod 10% at a time; Reverse deletion).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { KubeObject } from "../../src/kube/index.js";
import { baseGitEnv } from "../../src/git/index.js";

const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: guestbook-ui
  labels:
    app: guestbook-ui
spec:
  replicas: 2
  revisionHistoryLimit: 3
  selector:
    matchLabels:
      app: guestbook-ui
  template:
    metadata:
      labels:
        app: guestbook-ui
    spec:
      containers:
        - name: guestbook-ui
          image: gcr.io/heptio-images/ks-guestbook-demo:0.2
          ports:
            - containerPort: 80
`;

const SERVICE = `apiVersion: v1
kind: Service
metadata:
  name: guestbook-ui
  labels:
    app: guestbook-ui
spec:
  ports:
    - port: 80
      targetPort: 80
  selector:
    app: guestbook-ui
`;

/** Creates a Git repository in `dir` with `guestbook/` on branch main; returns its `file://` URL. */
export function makeGuestbookRepo(dir: string): string {
  mkdirSync(join(dir, "guestbook"), { recursive: true });
  writeFileSync(join(dir, "guestbook", "guestbook-ui-deployment.yaml"), DEPLOYMENT);
  writeFileSync(join(dir, "guestbook", "guestbook-ui-svc.yaml"), SERVICE);
  const env = {
    ...baseGitEnv(process.env),
    GIT_AUTHOR_NAME: "demo",
    GIT_AUTHOR_EMAIL: "demo@example.com",
    GIT_COMMITTER_NAME: "demo",
    GIT_COMMITTER_EMAIL: "demo@example.com",
  };
  const git = (...args: string[]): void => {
    execFileSync("git", args, { cwd: dir, env, stdio: "ignore" });
  };
  git("init", "-q", "-b", "main");
  git("add", ".");
  git("commit", "-q", "-m", "guestbook: a Deployment and a Service");
  return `file://${dir}`;
}

/** The environments the demo deploys to: the env label picks the step. */
export const ENVIRONMENTS: ReadonlyArray<{ readonly name: string; readonly env: "dev" | "qa" | "prod" }> = [
  { name: "dev", env: "dev" },
  { name: "qa", env: "qa" },
  { name: "prod-eu", env: "prod" },
  { name: "prod-us", env: "prod" },
  { name: "prod-ap", env: "prod" },
];

/** The Application name of an environment. */
export function appName(envName: string): string {
  return `engineering-${envName}-guestbook`;
}

/** The namespaces the guestbook is deployed to, one per environment: `<prefix>-<environment>`. */
export function guestbookNamespaces(prefix: string): string[] {
  return ENVIRONMENTS.map((e) => `${prefix}-${e.name}`);
}

const step = (env: string, maxUpdate?: number | string): Record<string, unknown> => ({
  matchExpressions: [{ key: "envLabel", operator: "In", values: [`env-${env}`] }],
  ...(maxUpdate === undefined ? {} : { maxUpdate }),
});

/**
 * The seed's RollingSync example: step 1 env-dev (all at once), step 2 env-qa with maxUpdate 0 (the
 * controller never syncs it: a person does), step 3 env-prod 10% at a time; Reverse deletion. Each
 * Application deploys the guestbook into its own namespace, {@link guestbookNamespaces}.
 */
export function guestbookAppSet(namespace: string, repoURL: string, namespacePrefix: string): KubeObject {
  return {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "ApplicationSet",
    metadata: { name: "guestbook", namespace },
    spec: {
      generators: [
        {
          list: {
            elements: ENVIRONMENTS.map((e, i) => ({ name: e.name, env: e.env, namespace: guestbookNamespaces(namespacePrefix)[i] })),
          },
        },
      ],
      strategy: {
        type: "RollingSync",
        deletionOrder: "Reverse",
        rollingSync: { steps: [step("dev"), step("qa", 0), step("prod", "10%")] },
      },
      template: {
        metadata: {
          name: appName("{{name}}"),
          labels: { envLabel: "env-{{env}}" },
          finalizers: ["resources-finalizer.argocd.argoproj.io"],
        },
        spec: {
          project: "default",
          source: { repoURL, targetRevision: "main", path: "guestbook" },
          destination: { server: "https://kubernetes.default.svc", namespace: "{{namespace}}" },
        },
      },
    },
  };
}
