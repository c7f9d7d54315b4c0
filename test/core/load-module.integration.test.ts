import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { childEnv, cliMain, type ProcessResult, tsxImport } from '../helpers/run-cli-process.js';

const hidePackages = fileURLToPath(new URL('../helpers/hide-packages.mjs', import.meta.url));
const fixture = fileURLToPath(new URL('../transport/fixtures/use-missing-packages.ts', import.meta.url));
const telemetryFixture = fileURLToPath(
  new URL('../telemetry/fixtures/run-without-otel-api.ts', import.meta.url),
);

/** Runs `node --import tsx --import hide-packages <args>` with `hidden` packages unresolvable. */
function runHiding(hidden: string[], args: string[]): Promise<ProcessResult> {
  const child = spawn(process.execPath, ['--import', tsxImport, '--import', hidePackages, ...args], {
    env: childEnv({ HIDE_PACKAGES: hidden.join(',') }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

const missing = (packageName: string) => ({
  name: 'MissingDependencyError',
  packageName,
  installCommand: `npm install ${packageName}`,
});

describe('loading an optional package', () => {
  describe('when the packages are not installed', () => {
    it('should import svc-agents/mcp and fail with a MissingDependencyError naming each package when used', async () => {
      const { code, stdout, stderr } = await runHiding(
        ['@modelcontextprotocol/sdk', 'ioredis', 'pg'],
        [fixture],
      );
      expect(code, stderr).toBe(0);
      expect(JSON.parse(stdout)).toEqual({
        mcpImport: 'loaded',
        mcpServer: missing('@modelcontextprotocol/sdk'),
        mcpConnect: missing('@modelcontextprotocol/sdk'),
        redisStore: missing('ioredis'),
        postgresStore: missing('pg'),
      });
    }, 60_000);

    it('should make `svc-agents mcp serve` say what to install, as a usage error', async () => {
      const { code, stdout, stderr } = await runHiding(
        ['@modelcontextprotocol/sdk'],
        [cliMain, 'mcp', 'serve', '--root', '.'],
      );
      expect(stdout).toBe('');
      expect(stderr).toContain(
        'error: svc-agents mcp needs @modelcontextprotocol/sdk: npm install @modelcontextprotocol/sdk',
      );
      expect(code).toBe(2);
    }, 60_000);

    it('should warn once that openTelemetry() traces nothing without @opentelemetry/api, and run on', async () => {
      const { code, stdout, stderr } = await runHiding(['@opentelemetry/api'], [telemetryFixture]);
      expect(code, stderr).toBe(0);
      expect(JSON.parse(stdout)).toEqual({ missing: true, status: 'completed', text: true });
      const warnings = stderr.split('\n').filter((line) => line.includes('MissingDependencyError'));
      expect(warnings).toEqual([
        expect.stringContaining(
          'openTelemetry() needs the optional package "@opentelemetry/api": npm install @opentelemetry/api',
        ),
      ]);
    }, 60_000);
  });
});
