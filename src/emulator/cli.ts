import { parseArgs } from 'node:util';
import { defaults } from '../core/defaults.js';
import { startEmulator } from './start-emulator.js';
import type { Emulator } from './types.js';

const USAGE = 'Usage: svc-agents emulator [--port 8787] [--host 127.0.0.1] [--api-key KEY] [--data-dir DIR]';

/**
 * Runs the emulator from the command line until SIGINT/SIGTERM; prints the base URL and the key to use.
 * Resolves with the running emulator (for embedding); `exitOnSignal: false` leaves the process alone.
 */
export async function runEmulatorCli(
  argv: string[],
  { log = console.log, exitOnSignal = true }: { log?: (line: string) => void; exitOnSignal?: boolean } = {},
): Promise<Emulator> {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string', default: String(defaults.emulatorPort) },
      host: { type: 'string', default: '127.0.0.1' },
      'api-key': { type: 'string' },
      'data-dir': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    log(USAGE);
    throw Object.assign(new Error(USAGE), { code: 'HELP' });
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`--port: must be 0-65535, got ${values.port}`);
  const emulator = await startEmulator({
    port,
    host: values.host,
    ...(values['api-key'] ? { apiKey: values['api-key'] } : {}),
    ...(values['data-dir'] ? { dataDir: values['data-dir'] } : {}),
  });
  log(`svc emulator listening on ${emulator.baseURL}`);
  log(`  SVC_BASE_URL=${emulator.baseURL}`);
  log(`  SVC_API_KEY=${emulator.apiKey}`);
  const stop = () => {
    void emulator.close().then(() => {
      log('svc emulator stopped');
      if (exitOnSignal) process.exit(0);
    });
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  // Closing by hand also drops the signal handlers, so embedding the CLI leaks nothing.
  const close = emulator.close;
  emulator.close = () => {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    return close();
  };
  return emulator;
}
