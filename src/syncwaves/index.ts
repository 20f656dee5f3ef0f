/**
 * The sync engine: orders an Application's resources by phase, wave and kind, runs hooks with their
 * delete policies, prunes in mirrored order, and reports health. The ordering and planning are pure;
 * the executor applies a wave plan through the kube ports.
 */
export {};
