import { runCli } from '../../src/cli/run-cli.js';
import type { Emulator } from '../../src/emulator/types.js';
import { memoryIo } from './memory-io.js';

/** What an in-process CLI run printed and returned. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `svc-agents <args>` in-process against an emulator, in `cwd`, with `input` on stdin. */
export async function runCliInMemory(
  emu: Emulator,
  args: string[],
  { cwd = process.cwd(), input = '' }: { cwd?: string; input?: string } = {},
): Promise<CliRun> {
  const io = memoryIo({ SVC_BASE_URL: emu.baseURL, SVC_API_KEY: emu.apiKey }, input);
  io.cwd = cwd;
  const code = await runCli(args, io);
  return { code, stdout: io.out(), stderr: io.err() };
}
