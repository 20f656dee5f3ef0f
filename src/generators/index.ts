/**
 * Generators: turn an ApplicationSet's generator entries into parameter sets (List, Cluster, Git,
 * Matrix, Merge, Cluster Decision Resource, Plugin, SCM Provider, Pull Request). Each receives narrow
 * injected readers (cluster Secrets, Git, HTTP), never a Kubernetes client; a failure is a typed error,
 * never an empty result.
 */
export {};
