#!/usr/bin/env node
import { runCli } from './run-cli.js';

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
