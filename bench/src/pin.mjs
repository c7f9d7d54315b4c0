// Core pinning for the bench's processes. On a 2-core machine the fake server and the measured
// contestant competed for the same cores, and the scheduler moved them mid-batch: the same build varied
// 15-35% between runs. With `taskset` the fake server runs on core 0 and every contestant (and every cold
// import probe) on core 1, so a contestant's CPU time is never stretched by the server's work on its core.
import { execFileSync, spawn } from 'node:child_process';
import os from 'node:os';

/** The core of the fake server. */
export const SERVER_CORE = 0;
/** The core of every contestant worker and import probe. */
export const CONTESTANT_CORE = 1;

/** True when `taskset` exists and the machine has two cores or more. */
export const canPin = (() => {
  if (os.availableParallelism() < 2) return false;
  try {
    execFileSync('taskset', ['-c', '0', 'true'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** `spawn(node, nodeArgs)`, pinned to `core` when pinning is possible. */
export function spawnNodePinned(core, nodeArgs, options) {
  return canPin
    ? spawn('taskset', ['-c', String(core), process.execPath, ...nodeArgs], options)
    : spawn(process.execPath, nodeArgs, options);
}

/** `execFileSync(node, nodeArgs)`, pinned to `core` when pinning is possible. */
export function execNodePinned(core, nodeArgs, options) {
  return canPin
    ? execFileSync('taskset', ['-c', String(core), process.execPath, ...nodeArgs], options)
    : execFileSync(process.execPath, nodeArgs, options);
}

/** How the processes were placed, for the report. */
export function pinningNote() {
  return canPin
    ? `fake server pinned to core ${SERVER_CORE}, contestants and import probes to core ${CONTESTANT_CORE} (taskset)`
    : 'not pinned (no taskset, or one core)';
}
