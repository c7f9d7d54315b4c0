import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

// Each script's SHA1, computed once per process.
const shas = new Map<string, string>();

/**
 * Runs a Lua script by its SHA1 (`EVALSHA`): a checkpoint sends the script's 40-character digest, not its
 * text (about 1,350 characters for a run write). A server that does not hold the script yet (first use,
 * after a restart or `SCRIPT FLUSH`, a failover to a replica) answers `NOSCRIPT`; the script is then sent
 * once in full with `EVAL`, which also loads it. Either way the script runs once.
 */
export async function evalScript(
  redis: Redis,
  script: string,
  numKeys: number,
  ...args: (string | number)[]
): Promise<unknown> {
  let sha = shas.get(script);
  if (sha === undefined) {
    sha = createHash('sha1').update(script).digest('hex');
    shas.set(script, sha);
  }
  try {
    return await redis.evalsha(sha, numKeys, ...args);
  } catch (error) {
    // NOSCRIPT means the script did not run: sending it in full cannot run it twice.
    if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
    return redis.eval(script, numKeys, ...args);
  }
}
