/**
 * The ApplicationSet controller: informers feed a de-duplicating work queue; each reconcile reads a
 * snapshot from the caches, asks the pure planner what should change, and applies the plan through the
 * kube ports. I/O only through injected ports (src/kube), time only through the Clock.
 */
export {};
