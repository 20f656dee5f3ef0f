/**
 * Clock: the only place (with src/kube) that touches real time. Pure modules take `now` as data;
 * long-lived ones take a {@link Clock}.
 */
export { rfc3339, sleepOn, type Clock, type TimerHandle } from "./clock.js";
export { SystemClock } from "./system.js";
export { FakeClock } from "./fake.js";
export { formatGoDuration, GoDurationError, parseGoDuration } from "./go-duration.js";
