/**
 * Where the demo's progress goes: on a terminal, a live frame redrawn in place with notes printed
 * above it; anywhere else, plain lines with the elapsed time, one per change. Also the phase
 * stopwatch whose figures end the demo.
 */
import { ansi, changeLines, renderFrame, type PhaseTiming } from "./render.js";
import type { View } from "./view.js";

/** What the scenario tells the person watching. */
export interface Reporter {
  /** A new phase begins (a heading line). */
  phase(title: string): void;
  /** A message that stays on screen. */
  note(text: string): void;
  /** The latest view of the rollout. */
  show(view: View): void;
  /** Leaves the last frame on screen and restores the terminal. */
  close(): void;
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1).padStart(6)}s`;

/** Plain line-by-line output through `write` (one call per line, no newline). */
export function plainReporter(write: (line: string) => void, now: () => number = () => performance.now()): Reporter {
  const start = now();
  let last: View | undefined;
  const line = (text: string): void => write(`[${seconds(now() - start)}] ${text}`);
  return {
    phase: (title) => line(`== ${title}`),
    note: (text) => {
      for (const l of text.split("\n")) line(l);
    },
    show: (view) => {
      for (const l of changeLines(last, view)) line(l);
      last = view;
    },
    close: () => undefined,
  };
}

/** A live frame on a terminal stream, redrawn in place. */
export function ttyReporter(out: NodeJS.WriteStream, now: () => number = () => performance.now()): Reporter {
  const start = now();
  let drawn = 0;
  let last: View | undefined;
  const erase = (): void => {
    if (drawn > 0) out.write(`\x1b[${drawn}A\r\x1b[0J`);
    drawn = 0;
  };
  const draw = (): void => {
    if (last === undefined) return;
    const lines = renderFrame(last, { paint: ansi, elapsedMs: now() - start });
    out.write(`${lines.join("\n")}\n`);
    drawn = lines.length;
  };
  out.write("\x1b[?25l\x1b[?7l"); // hide the cursor, no line wrapping (a wrapped line would break the redraw)
  return {
    phase: (title) => {
      erase();
      out.write(`${ansi("bold", `==> ${title}`)}\n`);
      draw();
    },
    note: (text) => {
      erase();
      out.write(`${text}\n`);
      draw();
    },
    show: (view) => {
      erase();
      last = view;
      draw();
    },
    close: () => {
      out.write("\x1b[?7h\x1b[?25h");
    },
  };
}

/** Times the demo's phases, in the order they ran. */
export class Stopwatch {
  private readonly phases: PhaseTiming[] = [];
  private readonly start: number;

  constructor(private readonly now: () => number = () => performance.now()) {
    this.start = now();
  }

  /** Runs `fn` as the phase `name` and records its wall time (also when it fails). */
  async time<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const t0 = this.now();
    try {
      return await fn();
    } finally {
      this.phases.push({ name, ms: this.now() - t0 });
    }
  }

  /** Records a phase measured elsewhere. */
  record(name: string, ms: number): void {
    this.phases.push({ name, ms });
  }

  /** The phases so far and the time since the stopwatch started. */
  report(): { phases: readonly PhaseTiming[]; totalMs: number } {
    return { phases: [...this.phases], totalMs: this.now() - this.start };
  }
}
