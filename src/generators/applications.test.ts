import { describe, expect, it } from "vitest";
import { FakeClock } from "../clock/index.js";
import { TemplateEngine } from "../template/index.js";
import { appSet, context } from "../../test/unit/generators/builders.js";
import { generateApplications } from "./applications.js";
import { createGeneratorRegistry } from "./registry.js";

/** A clock that moves 5 ms each time it is read. */
class TickingClock extends FakeClock {
  override now(): number {
    this.advance(5);
    return super.now();
  }
}

/** A List ApplicationSet of `n` elements, generated on a {@link TickingClock}. */
function setup(n: number, signal?: AbortSignal) {
  const ticking = new TickingClock(0);
  const elements = Array.from({ length: n }, (_, i) => ({
    name: `app-${String(i).padStart(3, "0")}`,
    server: "https://kubernetes.default.svc",
  }));
  const set = appSet([{ list: { elements } }]);
  const { renderer: _unused, ...base } = context();
  const ctx = { ...base, clock: ticking, ...(signal ? { signal } : {}) };
  return { set, opts: { ctx, registry: createGeneratorRegistry(), engine: new TemplateEngine({ now: () => 0 }) } };
}

describe("generateApplications and the event loop", () => {
  it("gives the event loop turns while it renders many parameter sets", async () => {
    const { set, opts } = setup(200);
    let turns = 0;
    const tick = (): void => {
      turns++;
      if (!done) setImmediate(tick);
    };
    let done = false;
    setImmediate(tick);
    const apps = await generateApplications(set, opts);
    done = true;
    expect({ apps: apps.length, turned: turns >= 10 }).toEqual({ apps: 200, turned: true });
  });

  it("stops rendering once the reconcile's signal has aborted", async () => {
    const abort = new AbortController();
    const { set, opts } = setup(200, abort.signal);
    abort.abort(new Error("deadline passed"));
    await expect(generateApplications(set, opts)).rejects.toThrow("deadline passed");
  });
});
