import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChatCompletionCreateParams } from '../../src/api/types/chat.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/types.js';
import { childEnv, runCli } from '../helpers/run-cli-process.js';

const SPAWN_TIMEOUT = 60_000;

describe('svc-agents chat', () => {
  let emu: Emulator;
  let env: Record<string, string>;

  beforeAll(async () => {
    emu = await startEmulator({ port: 0 });
    env = { SVC_BASE_URL: emu.baseURL, SVC_API_KEY: emu.apiKey };
  });
  beforeEach(() => emu.reset());
  afterAll(() => emu.close());

  const chatRequests = () =>
    emu
      .requests()
      .filter((r) => r.path === '/v1/chat/completions')
      .map((r) => r.body as ChatCompletionCreateParams);

  describe('when neither SVC_API_KEY nor SVC_BASE_URL is set', () => {
    it(
      'should start the embedded emulator, say so in one stderr line, print the answer and exit 0',
      async () => {
        const { code, stdout, stderr } = await runCli(['chat', 'Calculate 17*23']);
        expect(code).toBe(0);
        expect(stdout).toContain('391');
        const notices = stderr.split('\n').filter((line) => line.includes('emulator'));
        expect(notices).toEqual([
          expect.stringMatching(
            /^svc-agents: .*embedded emulator at http:\/\/127\.0\.0\.1:\d+ \(state in .+; --fresh to start empty\)$/,
          ),
        ]);
      },
      SPAWN_TIMEOUT,
    );
  });

  describe('when given --prices', () => {
    it(
      'should print the cost of the turn on stderr',
      async () => {
        const dir = await mkdtemp(join(tmpdir(), 'svc-prices-'));
        try {
          await writeFile(
            join(dir, 'prices.json'),
            JSON.stringify({ 'svc-3.5-flash-2603': { input: 1e6, output: 1e6 } }),
          );
          const { code, stderr } = await runCli(['chat', 'Hello there', '--prices', 'prices.json'], {
            env,
            cwd: dir,
          });
          expect(code).toBe(0);
          // At 1 per token, the cost is the turn's prompt plus completion tokens.
          const cost = Number(/cost of this turn: (\d+)/.exec(stderr)?.[1]);
          expect(cost).toBeGreaterThan(10);
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      },
      SPAWN_TIMEOUT,
    );
  });

  describe('when given a prompt argument', () => {
    it(
      'should print only the answer on stdout (tool activity on stderr) and exit 0',
      async () => {
        const { code, stdout, stderr } = await runCli(['chat', 'What is the weather in Paris?'], { env });
        expect(code).toBe(0);
        expect(stdout.trim().split('\n')).toHaveLength(1);
        expect(stdout).toMatch(/light rain/);
        expect(stderr).toContain('→ get_weather({"city":"Paris"})');
        expect(stderr).toContain('← get_weather: {"city":"Paris","condition":"light rain"');
        const [first, second] = chatRequests();
        expect(first?.stream).toBe(true);
        expect(first?.model).toBe('svc-3.5-flash-2603');
        expect(second?.messages.at(-1)).toMatchObject({ role: 'tool' });
      },
      SPAWN_TIMEOUT,
    );

    it(
      'should print the run as JSON with --json',
      async () => {
        const { code, stdout } = await runCli(
          ['chat', 'Calculate 17*23', '--json', '--model', 'svc-3.7-flash'],
          {
            env,
          },
        );
        expect(code).toBe(0);
        const json = JSON.parse(stdout);
        expect(json).toMatchObject({
          prompt: 'Calculate 17*23',
          status: 'completed',
          toolCalls: [{ toolName: 'calculate', output: { result: 391 }, status: 'ok' }],
        });
        expect(json.usage.totalTokens).toBeGreaterThan(0);
        expect(chatRequests().every((body) => body.model === 'svc-3.7-flash')).toBe(true);
      },
      SPAWN_TIMEOUT,
    );
  });

  describe('when prompts are piped on stdin', () => {
    it(
      'should answer each line in one conversation and honour /reset',
      async () => {
        const input = 'What is the weather in Paris?\nCalculate 17*23\n/reset\nWhat time is it?\n';
        const { code, stdout } = await runCli(['chat'], { env, input });
        expect(code).toBe(0);
        const answers = stdout.trim().split('\n');
        expect(answers).toHaveLength(3);
        expect(answers[0]).toContain('light rain');
        expect(answers[1]).toContain('391');
        expect(answers[2]).toContain('The current time');
        const userTurns = chatRequests().map((body) => body.messages.filter((m) => m.role === 'user').length);
        // Paris (2 requests), then 17*23 with the Paris turn kept (2), then after /reset a fresh start (2).
        expect(userTurns).toEqual([1, 1, 2, 2, 1, 1]);
      },
      SPAWN_TIMEOUT,
    );

    it(
      'should print one JSON line per prompt with --json',
      async () => {
        const { code, stdout } = await runCli(['chat', '--json'], {
          env,
          input: 'Calculate 2^10\nCalculate 6*7\n',
        });
        expect(code).toBe(0);
        const lines = stdout
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line));
        expect(lines.map((l) => l.toolCalls[0].output.result)).toEqual([1024, 42]);
      },
      SPAWN_TIMEOUT,
    );

    it(
      'should reject tools that need approval, since no one can approve',
      async () => {
        const { code, stderr } = await runCli(['chat'], { env, input: "Please delete 'abc'\n" });
        expect(code).toBe(0);
        expect(stderr).toContain('delete_file');
        expect(stderr).toContain('rejected');
        const toolMessages = chatRequests()
          .at(-1)
          ?.messages.filter((m) => m.role === 'tool');
        expect(toolMessages).toContainEqual(
          expect.objectContaining({ content: expect.stringMatching(/declined/) }),
        );
      },
      SPAWN_TIMEOUT,
    );
  });

  describe('when stdin is empty and not a terminal', () => {
    it(
      'should run the scripted demo conversation with a tool call and exit 0',
      async () => {
        const { code, stdout } = await runCli(['chat'], { env, input: '' });
        expect(code).toBe(0);
        expect(stdout).toContain('running the demo conversation');
        // Several tools in one turn.
        expect(stdout).toContain("you › What's the weather in Paris, and how much is 17% of 250?");
        expect(stdout).toContain(
          '→ get_weather({"city":"Paris"})\n  → calculate({"expression":"17/100*250"})',
        );
        expect(stdout).toMatch(
          /assistant › The weather in Paris: light rain, temperature 14 °C.*17\/100\*250 = 42\.5\./,
        );
        // The same tool twice, in parallel.
        expect(stdout).toContain('→ get_weather({"city":"London"})\n  → get_weather({"city":"Tokyo"})');
        // On a service the demo did not start, it creates nothing: no file to delete, no knowledge base.
        expect(stdout).not.toContain('delete_file');
      },
      SPAWN_TIMEOUT,
    );
  });

  describe('when the API key is wrong', () => {
    it(
      'should print one line naming the problem, exit 1 and never echo the key',
      async () => {
        const key = 'sk-wrong-key-123456';
        const { code, stdout, stderr } = await runCli(['chat', 'hello'], {
          env: { SVC_BASE_URL: emu.baseURL, SVC_API_KEY: key },
        });
        expect(code).toBe(1);
        expect(stdout).toBe('');
        expect(stderr).toMatch(
          /^error: the service rejected the API key \(401 invalid_api_key\); check SVC_API_KEY( \[trace id [^\]]+\])?\n$/,
        );
        expect(stderr).not.toContain(key);
      },
      SPAWN_TIMEOUT,
    );
  });

  describe('when the service cannot be reached', () => {
    it(
      'should print one line naming SVC_BASE_URL and exit 1',
      async () => {
        const { code, stderr } = await runCli(['chat', 'hello'], {
          env: { SVC_BASE_URL: 'http://127.0.0.1:9', SVC_API_KEY: 'sk-x' },
        });
        expect(code).toBe(1);
        expect(stderr.trim().split('\n')).toHaveLength(1);
        expect(stderr).toMatch(
          /^error: cannot reach the service at http:\/\/127\.0\.0\.1:9: .*check SVC_BASE_URL/,
        );
      },
      SPAWN_TIMEOUT,
    );
  });

  describe('when only one of the variables is set', () => {
    it(
      'should say which variable is missing in one line and exit 1',
      async () => {
        const { code, stderr } = await runCli(['chat', 'hello'], { env: { SVC_API_KEY: 'sk-x' } });
        expect(code).toBe(1);
        expect(stderr.trim().split('\n')).toHaveLength(1);
        expect(stderr).toMatch(/^error: .*SVC_BASE_URL/);
      },
      SPAWN_TIMEOUT,
    );
  });

  describe('when started the README way, with npm start', () => {
    it(
      'should answer a prompt given after --, and play the demo with empty stdin',
      async () => {
        const npm = (args: string[]) =>
          new Promise<{ code: number | null; stdout: string }>((resolve, reject) => {
            const child = spawn('npm', ['start', ...args], {
              env: childEnv(env),
              stdio: ['pipe', 'pipe', 'pipe'],
            });
            let stdout = '';
            child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
              stdout += chunk;
            });
            child.stdin.end();
            child.on('error', reject);
            child.on('close', (code) => resolve({ code, stdout }));
          });
        const oneShot = await npm(['--', 'Calculate 17*23']);
        expect(oneShot.code).toBe(0);
        expect(oneShot.stdout).toMatch(/17\*23 = 391\./);
        const demo = await npm([]);
        expect(demo.code).toBe(0);
        expect(demo.stdout).toContain('→ get_weather({"city":"Paris"})');
      },
      SPAWN_TIMEOUT * 2,
    );
  });
});
