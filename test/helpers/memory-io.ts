import { PassThrough, Readable } from 'node:stream';
import type { CliIo } from '../../src/cli/command.js';

/** In-memory streams for calling `runCli` in-process; `stdout()`/`stderr()` return what was written. */
export function memoryIo(env: NodeJS.ProcessEnv = {}, input = ''): CliIo & { out(): string; err(): string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
  });
  stderr.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  return {
    stdin: Readable.from([input]),
    stdout,
    stderr,
    env,
    cwd: process.cwd(),
    out: () => out,
    err: () => err,
  };
}
