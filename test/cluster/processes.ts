/**
 * Child processes of the local control plane: each runs in its own process group so that stopping it
 * stops everything it started, its output goes to a log file in the data directory, and a watchdog
 * kills every group (and removes the data directory) if the process that started them dies without
 * cleaning up: a crashed test run, a SIGKILL, a closed terminal.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { appendFileSync, openSync, closeSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** A running child process in its own process group. */
export interface Managed {
  readonly name: string;
  readonly pid: number;
  readonly exited: Promise<number | null>;
  isRunning(): boolean;
}

const live = new Map<number, ChildProcess>();
let exitHooked = false;

function hookExit(): void {
  if (exitHooked) return;
  exitHooked = true;
  // Last resort on a normal exit or an uncaught exception: kill what is still running.
  process.on("exit", () => {
    for (const pid of live.keys()) killGroup(pid, "SIGKILL");
  });
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.once(signal, () => {
      for (const pid of live.keys()) killGroup(pid, "SIGKILL");
      // Nobody else handles the signal: die of it, as the process would have without us.
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    });
  }
}

/** Sends a signal to a whole process group; a group that is already gone is ignored. */
export function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

/** Starts `command` in its own process group, logging to `<dataDir>/<name>.log`. */
export function startProcess(name: string, command: string, args: string[], dataDir: string): Managed {
  return startProcessWith(name, command, args, { dataDir });
}

/** Where and how {@link startProcessWith} runs a command. */
export interface ProcessPlace {
  readonly dataDir: string;
  /** The environment (default: this process's). */
  readonly env?: NodeJS.ProcessEnv;
}

/** {@link startProcess} with an environment of its own. */
export function startProcessWith(name: string, command: string, args: string[], place: ProcessPlace): Managed {
  const { dataDir, env } = place;
  hookExit();
  const logPath = join(dataDir, `${name}.log`);
  const fd = openSync(logPath, "a");
  const child = spawn(command, args, { detached: true, stdio: ["ignore", fd, fd], ...(env ? { env } : {}) });
  closeSync(fd);
  if (child.pid === undefined) throw new Error(`could not start ${name} (${command})`);
  const pid = child.pid;
  live.set(pid, child);
  appendFileSync(join(dataDir, "pgids"), `${pid}\n`);
  let running = true;
  const exited = new Promise<number | null>((resolve) => {
    child.once("exit", (code) => {
      running = false;
      live.delete(pid);
      resolve(code);
    });
    child.on("error", () => {
      running = false;
      live.delete(pid);
      resolve(null);
    });
  });
  return { name, pid, exited, isRunning: () => running };
}

/** Stops a process group: SIGTERM, then SIGKILL after `graceMs`. */
export async function stopProcess(p: Managed, graceMs = 5_000): Promise<void> {
  if (!p.isRunning()) return;
  killGroup(p.pid, "SIGTERM");
  const timer = setTimeout(() => killGroup(p.pid, "SIGKILL"), graceMs);
  await p.exited;
  clearTimeout(timer);
  killGroup(p.pid, "SIGKILL"); // anything the leader left behind in its group
}

/**
 * Starts a detached watchdog that, once `ownerPid` is gone, kills every process group listed in
 * `<dataDir>/pgids` and removes the data directory. It exits by itself when the data directory is
 * removed by a normal teardown.
 */
export function startWatchdog(ownerPid: number, dataDir: string): void {
  const script = `
owner=$1; dir=$2
while kill -0 "$owner" 2>/dev/null && [ -d "$dir" ]; do sleep 1; done
[ -d "$dir" ] || exit 0
if [ -f "$dir/pgids" ]; then
  while read -r g; do kill -KILL -- "-$g" 2>/dev/null; done < "$dir/pgids"
fi
sleep 1
rm -rf "$dir"
`;
  writeFileSync(join(dataDir, "owner"), `${ownerPid}\n`);
  const child = spawn("bash", ["-c", script, "watchdog", String(ownerPid), dataDir], {
    detached: true,
    stdio: "ignore",
  });
  child.unref();
}
