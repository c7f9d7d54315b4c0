import { describe, expect, it } from 'vitest';
import { runEmulatorCli } from '../../src/emulator/index.js';
import { callEmulator } from '../helpers/call-emulator.js';

describe('runEmulatorCli', () => {
  describe('when given a port, host and key', () => {
    it('should print the base URL and key and serve requests with that key', async () => {
      const lines: string[] = [];
      const emu = await runEmulatorCli(['--port', '0', '--api-key', 'sk-cli-test'], {
        log: (line) => lines.push(line),
        exitOnSignal: false,
      });
      try {
        expect(lines.join('\n')).toContain(emu.baseURL);
        expect(lines.join('\n')).toContain('SVC_API_KEY=sk-cli-test');
        expect((await callEmulator(emu.baseURL, 'sk-cli-test', 'GET', '/v1/models')).status).toBe(200);
      } finally {
        await emu.close();
      }
    });
  });

  describe('when given a bad port or an unknown flag', () => {
    it('should throw naming the problem', async () => {
      await expect(runEmulatorCli(['--port', 'abc'], { log: () => {}, exitOnSignal: false })).rejects.toThrow(
        /--port/,
      );
      await expect(runEmulatorCli(['--nope'], { log: () => {}, exitOnSignal: false })).rejects.toThrow(
        /nope/,
      );
    });
  });
});
