/**
 * Progressive syncs: RollingSync step membership, the per-Application state machine
 * (Waiting → Pending → Progressing → Healthy), maxUpdate budgets and Reverse deletion order. Pure: it
 * decides, the controller writes.
 */
export {};
