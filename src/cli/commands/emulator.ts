import { runEmulatorCli } from '../../emulator/cli.js';
import type { CommandSpec } from '../command.js';

/** `svc-agents emulator`: the local stand-in of the service (its own flags; see docs/emulator.md). */
export const emulatorCommand: CommandSpec = {
  path: ['emulator'],
  summary: 'run the local emulator of the service (see docs/emulator.md)',
  usage: 'emulator [--port 8787] [--host 127.0.0.1] [--api-key KEY] [--data-dir DIR]',
  positionals: { min: 0 },
  rawArgs: true,
  async run(_ctx, args) {
    return (await runEmulatorCli(args.positionals)) ?? 0;
  },
};
