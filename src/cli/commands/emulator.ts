import { runEmulatorCli } from '../../emulator/cli.js';
import type { CommandSpec } from '../command.js';
import { CliUsageError } from '../errors.js';
import { commandHelp, describeCommand } from '../help-text.js';

/** `svc-agents emulator`: the local stand-in of the service (its own flags; see docs/emulator.md). */
export const emulatorCommand: CommandSpec = {
  path: ['emulator'],
  summary: 'run the local emulator of the service until Ctrl-C (see docs/emulator.md)',
  usage: 'emulator [--port 8787] [--host 127.0.0.1] [--api-key KEY] [--data-dir DIR]',
  positionals: { min: 0, max: 0 },
  // Listed for --help; the emulator's own CLI parses them.
  options: {
    port: {
      type: 'string',
      valueName: '<n>',
      description: 'port to listen on, 0 for any free one (default 8787)',
    },
    host: { type: 'string', valueName: '<addr>', description: 'interface to bind (default 127.0.0.1)' },
    'api-key': {
      type: 'string',
      valueName: '<key>',
      description: 'the only key accepted (default sk-emulator)',
    },
    'data-dir': {
      type: 'string',
      valueName: '<dir>',
      description: 'keep files, knowledge bases and voices here',
    },
  },
  details:
    'Prints SVC_BASE_URL and SVC_API_KEY to use, and serves until SIGINT or SIGTERM. See docs/emulator.md.',
  rawArgs: true,
  async run(ctx, args) {
    const argv = args.positionals.filter((arg) => arg !== '--json');
    if (argv.includes('--help') || argv.includes('-h')) {
      if (ctx.json) ctx.printJson(describeCommand(emulatorCommand));
      else ctx.io.stdout.write(commandHelp(emulatorCommand));
      return 0;
    }
    const log = ctx.json ? () => {} : (line: string) => ctx.io.stdout.write(`${line}\n`);
    let emulator: Awaited<ReturnType<typeof runEmulatorCli>>;
    try {
      emulator = await runEmulatorCli(argv, { log });
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) {
        const first = (error as Error).message.split('. ')[0] ?? '';
        throw new CliUsageError(first.replace(/^Unknown option/, 'unknown option'), 'emulator');
      }
      throw error;
    }
    if (ctx.json) ctx.printJson({ baseURL: emulator.baseURL, apiKey: emulator.apiKey, port: emulator.port });
    // The emulator serves until SIGINT/SIGTERM, when it closes and exits the process itself.
    return new Promise<number>(() => {});
  },
};
