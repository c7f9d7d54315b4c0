import { join } from 'node:path';
import { Agent, type Dispatcher } from 'undici';
import { ConfigurationError } from '../core/errors.js';
import { type Interaction, readCassette, writeCassette } from './cassette.js';
import { RecordReplayDispatcher } from './record-replay-dispatcher.js';

/** `record` sends and writes, `replay` answers from the file (no network), `auto` replays when recorded. */
export type RecordMode = 'record' | 'replay' | 'auto';

/** Options of {@link recordReplay}. */
export interface RecordReplayOptions {
  /** Folder of the cassettes. */
  dir: string;
  /** The cassette's name (one per test): the file is `<dir>/<name>.json`. */
  name: string;
  /**
   * What to do; `SVC_RECORD_MODE` when not given. Run CI with `SVC_RECORD_MODE=replay`: then any request
   * without a recording is an error, so no test reaches the network.
   * @default process.env.SVC_RECORD_MODE ?? 'auto'
   */
  mode?: RecordMode;
  /** Further secrets to keep out of the files (the bearer key of every request always is). */
  secrets?: readonly string[];
  /** Rewrites a request body before it is matched and written: drop what changes between runs. */
  normalize?: (body: unknown) => unknown;
}

/** A cassette in use: pass `clientOptions` to `new SvcClient(...)`, `close()` when the test ends. */
export interface Recording {
  /** What this cassette does in this run. */
  readonly mode: 'record' | 'replay';
  /** The cassette file. */
  readonly path: string;
  /** Options for `SvcClient`: the dispatcher, and in replay mode a placeholder key (no real one is needed). */
  readonly clientOptions: { dispatcher: Dispatcher; apiKey?: string };
  /** Writes what was recorded (record mode) and closes the connections. */
  close(): Promise<void>;
}

/**
 * Records every request an `SvcClient` makes and its answer (streams event by event) to a readable JSON
 * file, or replays them offline. Keys are never written: the bearer key and `secrets` are masked.
 *
 * @example
 * const recording = await recordReplay({ dir: 'test/cassettes', name: 'weather-agent' });
 * const client = new SvcClient({ ...recording.clientOptions });
 * // ... run the agent ...
 * await recording.close();
 */
export async function recordReplay({
  dir,
  name,
  mode = modeFromEnvironment(),
  secrets = [],
  normalize,
}: RecordReplayOptions): Promise<Recording> {
  if (!/^[\w.-]+$/.test(name))
    throw new ConfigurationError({
      field: 'name',
      rule: `${JSON.stringify(name)} must be a file name (letters, digits, . _ -)`,
    });
  const path = join(dir, `${name}.json`);
  const existing = mode === 'record' ? undefined : await readCassette(path);
  if (mode === 'replay' && existing === undefined)
    throw new ConfigurationError({
      field: 'mode',
      rule: `replay, but there is no cassette at ${path}; record it with SVC_RECORD_MODE=record`,
    });
  const replaying = existing !== undefined;
  const recorded: Interaction[] = [];
  const upstream = replaying ? undefined : new Agent();
  const dispatcher = new RecordReplayDispatcher({
    mode: replaying ? 'replay' : 'record',
    cassette: path,
    interactions: existing ?? [],
    ...(upstream ? { upstream } : {}),
    onRecorded: (interaction) => recorded.push(interaction),
    secrets,
    ...(normalize ? { normalize } : {}),
  });
  return {
    mode: replaying ? 'replay' : 'record',
    path,
    clientOptions: replaying ? { dispatcher, apiKey: 'sk-replay' } : { dispatcher },
    async close() {
      if (!replaying) await writeCassette(path, recorded);
      await dispatcher.close();
    },
  };
}

function modeFromEnvironment(): RecordMode {
  const value = process.env.SVC_RECORD_MODE;
  if (value === undefined || value === '') return 'auto';
  if (value === 'record' || value === 'replay' || value === 'auto') return value;
  throw new ConfigurationError({
    field: 'SVC_RECORD_MODE',
    rule: `${JSON.stringify(value)} must be record, replay or auto`,
  });
}
