import { describe, expect, it } from 'vitest';
import { commands } from '../../src/cli/commands/registry.js';
import { runCli } from '../../src/cli/run-cli.js';
import { memoryIo } from '../helpers/memory-io.js';

describe('svc-agents --help', () => {
  describe('when asked for the overview', () => {
    it('should list every command and exit 0', async () => {
      const io = memoryIo();
      expect(await runCli(['--help'], io)).toBe(0);
      for (const command of commands) expect(io.out()).toContain(command.path.join(' '));
      expect(io.err()).toBe('');
    });
  });

  describe.each(commands.map((c) => [c.path.join(' '), c] as const))(
    'when asked for the help of %s',
    (name, command) => {
      it('should print its usage, its options, --json and exit 0 without contacting any service', async () => {
        const io = memoryIo({ SVC_BASE_URL: 'http://127.0.0.1:9', SVC_API_KEY: 'unused' });
        expect(await runCli([...command.path, '--help'], io)).toBe(0);
        expect(io.out()).toContain(`Usage: svc-agents ${name}`);
        expect(io.out()).toContain('--json');
        for (const option of Object.keys(command.options ?? {})) expect(io.out()).toContain(`--${option}`);
        expect(io.err()).toBe('');
      });
    },
  );

  describe('when asked for help with --json', () => {
    it('should describe the commands and their options as JSON', async () => {
      const overview = memoryIo();
      expect(await runCli(['--help', '--json'], overview)).toBe(0);
      const { commands: listed } = JSON.parse(overview.out()) as { commands: Array<{ command: string }> };
      expect(listed.map((c) => c.command)).toEqual(commands.map((c) => c.path.join(' ')));

      const one = memoryIo();
      expect(await runCli(['image', '--help', '--json'], one)).toBe(0);
      expect(JSON.parse(one.out())).toMatchObject({
        command: 'image',
        usage: expect.stringMatching(/^svc-agents image /),
        options: expect.arrayContaining([
          { name: '--output', short: '-o', takesValue: true, description: expect.any(String) },
        ]),
      });
    });
  });

  describe('when the command line is wrong', () => {
    it.each([
      [['nope'], /^error: unknown command "nope" \(see: svc-agents --help\)\n$/],
      [['kb', 'nope'], /^error: unknown command "kb nope" \(see: svc-agents kb --help\)\n$/],
      [['kb', 'create'], /^error: missing argument; usage: svc-agents kb create <name>.*\n$/],
      [['kb', 'create', 'a', 'b'], /^error: unexpected argument "b" \(see: svc-agents kb create --help\)\n$/],
      [['tokens', 'x', '--nope'], /^error: unknown option '--nope' \(see: svc-agents tokens --help\)\n$/],
      [['kb', 'create', 'docs', '--type', 'video'], /^error: --type must be text or image, got "video"/],
      [['image', 'a cat', '--seed', 'abc'], /^error: --seed must be a non-negative integer, got "abc"/],
      [['emulator', '--bogus'], /^error: unknown option '--bogus' \(see: svc-agents emulator --help\)\n$/],
    ])('should print one line for %j and exit 2', async (argv, pattern) => {
      const io = memoryIo({ SVC_BASE_URL: 'http://127.0.0.1:9', SVC_API_KEY: 'unused' });
      expect(await runCli(argv, io)).toBe(2);
      expect(io.err()).toMatch(pattern);
      expect(io.out()).toBe('');
    });

    it('should print the error as one JSON line with --json', async () => {
      const io = memoryIo();
      expect(await runCli(['nope', '--json'], io)).toBe(2);
      expect(JSON.parse(io.err())).toEqual({
        error: { name: 'CliUsageError', message: 'unknown command "nope"' },
      });
    });
  });
});
