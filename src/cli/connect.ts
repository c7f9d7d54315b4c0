import { rm } from 'node:fs/promises';
import { SvcClient } from '../api/svc-client.js';
import type { ClientOptions } from '../transport/client-options.js';
import type { CommandContext } from './command.js';
import { emulatorDataDir, freshRequested } from './emulator-data-dir.js';

/** A client for a command, on the real service or on the embedded emulator. */
export interface Connection {
  client: SvcClient;
  /** True when the embedded emulator answers. */
  emulated: boolean;
}

/**
 * Creates the client a command uses. With neither `SVC_API_KEY` nor `SVC_BASE_URL` set it starts the
 * embedded emulator in-process and says so in one line on stderr, so every command works offline. That
 * emulator keeps its state in a per-user cache folder, so `kb create` then `kb add` work in sequence;
 * `--fresh` (or `SVC_AGENTS_FRESH=1`) empties it first. Both are closed when the command ends. `extra`
 * options go to the client (`eval --record` passes its recording dispatcher).
 */
export async function connect(ctx: CommandContext, extra: Partial<ClientOptions> = {}): Promise<Connection> {
  const { env } = ctx.io;
  if (!env.SVC_API_KEY && !env.SVC_BASE_URL) {
    // Loaded on demand: commands talking to a real service never pay for the emulator's import.
    const { startEmulator } = await import('../emulator/index.js');
    const dataDir = emulatorDataDir(env);
    const fresh = Boolean(ctx.fresh) || freshRequested(env);
    if (fresh) await rm(dataDir, { recursive: true, force: true });
    const emulator = await startEmulator({ port: 0, dataDir });
    ctx.defer(() => emulator.close());
    ctx.io.stderr.write(
      ctx.style.err.dim(
        `svc-agents: SVC_API_KEY and SVC_BASE_URL are not set; using the embedded emulator at ${emulator.baseURL} ` +
          `(state in ${dataDir}${fresh ? ', emptied' : '; --fresh to start empty'})\n`,
      ),
    );
    const client = new SvcClient({ apiKey: emulator.apiKey, baseURL: emulator.baseURL, ...extra });
    ctx.defer(() => client.close());
    return { client, emulated: true };
  }
  const options: { apiKey?: string; baseURL?: string } = {};
  if (env.SVC_API_KEY) options.apiKey = env.SVC_API_KEY;
  if (env.SVC_BASE_URL) options.baseURL = env.SVC_BASE_URL;
  const client = new SvcClient({ ...options, ...extra });
  ctx.defer(() => client.close());
  return { client, emulated: false };
}
