import { homedir } from 'node:os';
import { join } from 'node:path';
import { defaults } from '../core/defaults.js';

/** Environment variable naming the folder where the CLI's embedded emulator keeps its state. */
export const DATA_DIR_ENV = 'SVC_AGENTS_EMULATOR_DIR';

/** Environment variable that, set to `1` (or `true`), starts the embedded emulator empty, like `--fresh`. */
export const FRESH_ENV = 'SVC_AGENTS_FRESH';

/**
 * Where the embedded emulator of the CLI keeps files, knowledge bases and voices between commands:
 * `$SVC_AGENTS_EMULATOR_DIR`, else the per-user cache folder (`$XDG_CACHE_HOME` or `~/.cache` on Linux,
 * `~/Library/Caches` on macOS, `%LOCALAPPDATA%` on Windows) + `svc-agents/emulator`.
 */
export function emulatorDataDir(
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
  home: string = homedir(),
): string {
  const explicit = env[DATA_DIR_ENV];
  if (explicit) return explicit;
  let cache: string;
  if (platform === 'win32') cache = env.LOCALAPPDATA || join(home, 'AppData', 'Local');
  else if (platform === 'darwin') cache = join(home, 'Library', 'Caches');
  else cache = env.XDG_CACHE_HOME || join(home, '.cache');
  return join(cache, ...defaults.emulatorDataFolder.split('/'));
}

/** True when the environment asks for an empty emulator. */
export function freshRequested(env: NodeJS.ProcessEnv): boolean {
  const value = env[FRESH_ENV]?.trim().toLowerCase();
  return value === '1' || value === 'true' || value === 'yes';
}
