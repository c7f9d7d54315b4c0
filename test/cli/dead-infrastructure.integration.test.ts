import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli-process.js';

// Every command that needs Redis or PostgreSQL, against an address where nothing answers: each must end
// with a non-zero exit naming the address and the cause. A process still running after 10 s is killed
// (exit code null), which fails the test: that is the bound the CLI promises.
const COMMANDS: string[][] = [
  ['worker'],
  ['runs', 'ls'],
  ['runs', 'show', 'run-1'],
  ['runs', 'approve', 'run-1', 'call-1'],
  ['runs', 'reject', 'run-1', 'call-1'],
  ['runs', 'stats'],
  ['runs', 'prune'],
  ['serve', '--port', '0'],
];

/** A port nothing listens on: bound once by the OS, then closed. */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A server that takes connections and never says a word (a firewall that swallows, a hung server). */
async function silentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

const flagsOf = {
  redis: (port: number) => ['--redis', `redis://127.0.0.1:${port}`],
  postgres: (port: number) => ['--postgres', `postgres://postgres@127.0.0.1:${port}/test`],
};

for (const backend of ['redis', 'postgres'] as const) {
  describe(`every command against a dead ${backend} port`, { timeout: 60_000 }, () => {
    let port: number;
    beforeAll(async () => {
      port = await deadPort();
    });

    for (const command of COMMANDS) {
      it(`should make \`${command.join(' ')}\` exit non-zero naming the address and "refused"`, async () => {
        const result = await runCli([...command, ...flagsOf[backend](port)], { timeoutMs: 10_000 });

        expect(result.code, result.stderr).not.toBeNull();
        expect(result.code).not.toBe(0);
        expect(result.stderr).toContain(`127.0.0.1:${port}`);
        expect(result.stderr).toContain('connection refused');
      });
    }
  });

  describe(`a ${backend} port that never answers`, { timeout: 60_000 }, () => {
    let silent: Awaited<ReturnType<typeof silentServer>>;
    beforeAll(async () => {
      silent = await silentServer();
    });
    afterAll(() => silent.close());

    for (const command of [['runs', 'ls'], ['worker']]) {
      it(`should make \`${command.join(' ')}\` exit non-zero naming the address and the timeout`, async () => {
        const result = await runCli([...command, ...flagsOf[backend](silent.port)], { timeoutMs: 10_000 });

        expect(result.code, result.stderr).not.toBeNull();
        expect(result.code).not.toBe(0);
        expect(result.stderr).toContain(`127.0.0.1:${silent.port}`);
        expect(result.stderr).toMatch(/timed out/);
      });
    }
  });
}
