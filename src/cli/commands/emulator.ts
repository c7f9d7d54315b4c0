import { runEmulatorCli } from '../../emulator/cli.js';
import type { CommandSpec } from '../command.js';

/** `svc-agents emulator`: the local stand-in of the service (its own flags; see docs/emulator.md). */
export const emulatorCommand: CommandSpec = {
  path: ['emulator'],
  summary: 'run the local emulator of the service until Ctrl-C (see docs/emulator.md)',
  usage: 'emulator [--port 8787] [--host 127.0.0.1] [--api-key KEY] [--data-dir DIR]',
  positionals: { min: 0 },
  rawArgs: true,
  async run(ctx, args) {
    const argv = args.positionals.filter((arg) => arg !== '--json');
    const lines: string[] = [];
    const log = ctx.json
      ? (line: string) => lines.push(line)
      : (line: string) => ctx.io.stdout.write(`${line}\n`);
    let emulator: Awaited<ReturnType<typeof runEmulatorCli>>;
    try {
      emulator = await runEmulatorCli(argv, { log });
    } catch (error) {
      if ((error as { code?: unknown }).code === 'HELP') {
        if (ctx.json) ctx.printJson({ usage: lines.join('\n') });
        else ctx.io.stdout.write('Every flag is optional; the emulator is documented in docs/emulator.md.\n');
        return 0;
      }
      throw error;
    }
    if (ctx.json) ctx.printJson({ baseURL: emulator.baseURL, apiKey: emulator.apiKey, port: emulator.port });
    // The emulator serves until SIGINT/SIGTERM, when it closes and exits the process itself.
    return new Promise<number>(() => {});
  },
};
