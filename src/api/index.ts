/**
 * The domain types: zod schemas and inferred TypeScript types of ApplicationSet, Application,
 * AppProject and cluster Secrets, plus every externally visible constant. This folder does no
 * I/O: raw JSON is parsed once at the edge with the `parse*` helpers (which return a
 * {@link ParseResult}, never throw), and pure code receives the typed objects. Schemas are loose:
 * unknown fields survive a parse → serialize round trip.
 */
export * from "./constants.js";
export * from "./appset-status.js";
export * from "./application-status.js";
export * from "./meta.js";
export * from "./parse.js";
export * from "./application.js";
export * from "./generators.js";
export * from "./applicationset.js";
export * from "./appproject.js";
export * from "./cluster-secret.js";
export * from "./rollout-constants.js";
export * from "./rollout-policy.js";
export * from "./rollout-run.js";
