#!/usr/bin/env node
import { formatCliError } from './format-cli-error.js';
import { runCli } from './run-cli.js';

// `svc-agents kb ls | head -1` closes the pipe early: that is a normal end, not a crash.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
  });
}
// Even a failure outside a command's own flow is one line, never a stack trace.
const fail = (error: unknown) => {
  const formatted = formatCliError(error, process.env);
  process.stderr.write(`${formatted.line}\n`, () => process.exit(formatted.exitCode));
};
process.on('uncaughtException', fail);
process.on('unhandledRejection', fail);

const exitCode = await runCli(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
});
// Exit once both streams are flushed, so a forgotten handle (a keep-alive socket, stdin) cannot keep
// the process alive after the command has finished.
process.stdout.write('', () => process.stderr.write('', () => process.exit(exitCode)));
