/**
 * Leader election on a `coordination.k8s.io/v1` Lease (Argo CD's lease name, controller-runtime's
 * timings): a pure decision core ({@link decide}) and the loop that applies it through the kube
 * client port ({@link LeaderElector}). Only the leader reconciles; probes, metrics and the webhook
 * run in every replica.
 */
export { LeaderElector, newIdentity, type ElectionEnd, type LeaderElectorOptions } from "./elector.js";
export {
  DEFAULT_TIMINGS,
  LEASE_NAME,
  Leases,
  decide,
  microTime,
  observe,
  releaseSpec,
  type Decision,
  type DecisionInput,
  type Lease,
  type LeaseSpec,
  type LeaseTimings,
  type Observation,
} from "./lease.js";
