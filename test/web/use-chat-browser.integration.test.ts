import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import type { ChatMessage } from '../../src/api/types/chat.js';
import type { ScriptedAnswer } from '../../src/emulator/types.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { type ChatHandler, createChatHandler } from '../../src/web/create-chat-handler.js';
import { chromiumAvailable, launchChromium } from '../helpers/launch-chromium.js';
import { type QueueNamespace, queueBackends } from '../helpers/queue-backends.js';
import { useAgentTestEnv } from '../helpers/use-agent-test-env.js';
import type { QueueChatProcessConfig } from './fixtures/queue-chat-process.js';
import type { UseChatServerConfig } from './fixtures/use-chat-queue-server.js';

const env = useAgentTestEnv();

let weatherRuns = 0;
const weather = defineTool({
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: z.object({ city: z.string() }),
  execute: ({ city }) => {
    weatherRuns++;
    return { city, condition: 'light rain', celsius: 14 };
  },
});
const reminder = defineTool({
  name: 'schedule_reminder',
  description: 'Schedules a reminder',
  parameters: z.object({ text: z.string() }),
  needsApproval: true,
  execute: ({ text }) => ({ scheduled: text }),
});

const call = (id: string, name: string, args: object, reasoning?: string): ScriptedAnswer => ({
  message: {
    content: '',
    ...(reasoning ? { reasoning } : {}),
    tool_calls: [{ id, function: { name, arguments: JSON.stringify(args) } }],
  },
});
/** A long answer streamed slowly (three words per chunk), then a call of get_weather. */
const slowAnswerThenWeather = (): ScriptedAnswer => ({
  message: {
    content: Array.from({ length: 40 }, (_, i) => `word${i}`).join(' '),
    tool_calls: [{ id: 'w9', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
  },
  fault: { dripMs: 150 },
});

/** The two majors the app is bundled against: `ai` 6 with `@ai-sdk/react` 3, `ai` 7 with `@ai-sdk/react` 4. */
const MAJORS = [
  { major: 'ai 6', alias: {} },
  { major: 'ai 7', alias: { ai: 'ai-v7', '@ai-sdk/react': '@ai-sdk/react-v4' } },
] as const;
type Major = (typeof MAJORS)[number]['major'];

const bundled = new Map<Major, Promise<string>>();
/** The `useChat` app of `use-chat-app/`, bundled once per major as a user's build would (React in production mode). */
function bundleApp(major: Major = 'ai 6'): Promise<string> {
  if (!bundled.has(major)) bundled.set(major, buildApp(MAJORS.find((m) => m.major === major)!.alias));
  return bundled.get(major)!;
}

async function buildApp(alias: Record<string, string>): Promise<string> {
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [fileURLToPath(new URL('./use-chat-app/chat-app.tsx', import.meta.url))],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    jsx: 'automatic',
    // Every import of `ai` (the app's and @ai-sdk/react's) goes to the major under test: one copy.
    alias,
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

const PAGE =
  '<!doctype html><meta charset="utf-8"><title>useChat</title><div id="root"></div><script type="module" src="/app.js"></script>';

// A real browser on two cores shared with the rest of the suite: give each test more than the default.
describe.runIf(chromiumAvailable()).each(MAJORS.map((m) => m.major))(
  'a useChat app (%s) on createChatHandler, in Chromium',
  { timeout: 60_000 },
  (major) => {
    let handler: ChatHandler;
    let server: Server;
    let url: string;
    let browser: Browser;

    beforeAll(async () => {
      const script = await bundleApp(major);
      // The bundle holds the major under test (its version string), not the other one.
      expect(script).toContain(major === 'ai 7' ? '"7.0.' : '"6.0.');
      handler = createChatHandler({
        agent: new Agent({ client: env.client, model: 'svc-3.5-flash', tools: [weather, reminder] }),
      });
      server = createServer((req, res) => {
        if (req.url === '/' || req.url?.startsWith('/?')) {
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
        } else if (req.url === '/app.js') {
          res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(script);
        } else void handler.node(req, res);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      browser = await launchChromium();
    }, 60_000);

    afterAll(async () => {
      await browser?.close();
      await handler?.close();
      server?.closeAllConnections();
      await new Promise((resolve) => server?.close(resolve));
    });

    async function openChat(chatId: string, query = ''): Promise<Page> {
      const page = await (await browser.newContext()).newPage();
      await page.goto(`${url}/?chat=${chatId}${query}`);
      await page.locator('#prompt').waitFor();
      return page;
    }

    async function ask(page: Page, text: string) {
      await expect.poll(() => page.locator('#send').isEnabled()).toBe(true);
      await page.locator('#prompt').fill(text);
      await page.locator('#prompt').press('Enter');
    }

    const lastAnswer = (page: Page) => page.locator('li.msg.assistant').last();
    const status = (page: Page) => page.locator('#status').textContent();
    const history = async (chatId: string) =>
      ((await (await fetch(`${url}/api/sessions/${chatId}`)).json()) as { messages: ChatMessage[] }).messages;

    describe('when the agent reasons and calls a tool', () => {
      it('should render the reasoning, the tool part with its input and output, and the answer', async () => {
        env.emu.script([
          call('w1', 'get_weather', { city: 'Paris' }, 'I should call get_weather.'),
          { message: { content: 'Light rain in Paris, 14 °C.', reasoning: 'The tool answered.' } },
        ]);
        const page = await openChat('tools');
        await ask(page, 'What is the weather in Paris?');
        const answer = lastAnswer(page);
        await answer.locator('.text', { hasText: 'Light rain in Paris, 14 °C.' }).waitFor();
        const tool = answer.locator('.tool[data-tool="get_weather"]');
        expect(await tool.getAttribute('data-state')).toBe('output-available');
        expect(await tool.locator('.input').textContent()).toContain('Paris');
        expect(await tool.locator('.output').textContent()).toContain('light rain');
        expect(await answer.locator('.reasoning pre').allTextContents()).toEqual([
          'I should call get_weather.',
          'The tool answered.',
        ]);
        await page.context().close();
      });
    });

    describe('when a tool needs approval', () => {
      it('should run it after Approve and show its output and the answer', async () => {
        env.emu.script([
          call('r1', 'schedule_reminder', { text: 'water' }),
          { message: { content: 'Reminder set.' } },
        ]);
        const page = await openChat('approve');
        await ask(page, 'Remind me to water the plants');
        await page.getByRole('button', { name: 'Approve schedule_reminder' }).click();
        const answer = lastAnswer(page);
        await answer.locator('.text', { hasText: 'Reminder set.' }).waitFor();
        expect(await answer.locator('.tool').getAttribute('data-state')).toBe('output-available');
        expect(await answer.locator('.tool .output').textContent()).toContain('"scheduled":"water"');
        expect(await page.locator('#error').count()).toBe(0);
        await page.context().close();
      });

      it('should show it denied after Reject, and the model says so', async () => {
        env.emu.script([
          call('r2', 'schedule_reminder', { text: 'call' }),
          { message: { content: 'Not scheduled.' } },
        ]);
        const page = await openChat('reject');
        await ask(page, 'Remind me to call the bank');
        await page.getByRole('button', { name: 'Reject schedule_reminder' }).click();
        const answer = lastAnswer(page);
        await answer.locator('.text', { hasText: 'Not scheduled.' }).waitFor();
        expect(await answer.locator('.tool').getAttribute('data-state')).toBe('output-denied');
        const tool = (await history('reject')).find((m) => m.role === 'tool');
        expect(tool?.content).toContain('rejected');
        await page.context().close();
      });

      it('should keep Approve/Reject after a reload, and approving then completes the run', async () => {
        env.emu.script([
          call('r3', 'schedule_reminder', { text: 'water' }),
          { message: { content: 'Reminder set.' } },
        ]);
        const page = await openChat('reload-approve');
        await ask(page, 'Remind me to water the plants');
        await page.getByRole('button', { name: 'Approve schedule_reminder' }).waitFor();
        await page.reload();
        const approve = page.getByRole('button', { name: 'Approve schedule_reminder' });
        await approve.waitFor();
        expect(await page.getByRole('button', { name: 'Reject schedule_reminder' }).count()).toBe(1);
        expect(await page.locator('li.msg.user').textContent()).toBe('Remind me to water the plants');
        await approve.click();
        const answer = lastAnswer(page);
        await answer.locator('.text', { hasText: 'Reminder set.' }).waitFor();
        expect(await answer.locator('.tool').getAttribute('data-state')).toBe('output-available');
        expect(await page.locator('#error').count()).toBe(0);
        await page.context().close();
      });
    });

    describe('when Stop is pressed mid-answer', () => {
      it('should answer the next message at once, and the history holds only what was shown', async () => {
        weatherRuns = 0;
        env.emu.script([slowAnswerThenWeather()]);
        const page = await openChat('stop');
        await ask(page, 'Tell me a long story');
        await lastAnswer(page).locator('.text', { hasText: 'word6' }).waitFor();
        await page.locator('#stop').click();
        await expect.poll(() => status(page)).toBe('ready');
        const shown = (await lastAnswer(page).locator('.text').textContent()) ?? '';

        env.emu.reset();
        env.emu.script([{ message: { content: 'A short one.' } }]);
        await ask(page, 'A short one please');
        await lastAnswer(page).locator('.text', { hasText: 'A short one.' }).waitFor();
        expect(await page.locator('#error').count()).toBe(0);
        expect(weatherRuns).toBe(0);
        const messages = await history('stop');
        expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
        const kept = messages[1]!.content as string;
        expect(kept.startsWith(shown)).toBe(true);
        expect(kept).not.toContain('word39');
        await page.context().close();
      });
    });

    describe('when Stop is pressed with resume on (point 1)', () => {
      it('should stop the server run (no tool runs), and a reload shows exactly what the page showed', async () => {
        weatherRuns = 0;
        env.emu.script([{ ...slowAnswerThenWeather(), fault: { dripMs: 500 } }]);
        const page = await openChat('stop-resume');
        await ask(page, 'Tell me a long story');
        await lastAnswer(page).locator('.text', { hasText: 'word6' }).waitFor();
        await page.locator('#stop').click();
        await expect.poll(() => status(page)).toBe('ready');
        const shown = (await lastAnswer(page).locator('.text').textContent()) ?? '';
        await expect
          .poll(
            async () =>
              ((await (await fetch(`${url}/api/sessions/stop-resume`)).json()) as { activeRunId: unknown })
                .activeRunId,
            { timeout: 15_000 },
          )
          .toBeNull();
        expect(weatherRuns).toBe(0);
        await page.reload();
        await lastAnswer(page).locator('.text').waitFor();
        await expect.poll(() => status(page)).toBe('ready');
        expect(await lastAnswer(page).locator('.text').textContent()).toBe(shown);
        expect(await page.locator('#error').count()).toBe(0);
        await page.context().close();
      });
    });

    describe('when Regenerate is pressed', () => {
      it('should replace the last answer, on the page and in the history', async () => {
        env.emu.script([
          { message: { content: 'First answer.' } },
          { message: { content: 'Second answer.' } },
        ]);
        const page = await openChat('regenerate');
        await ask(page, 'Tell me something');
        await lastAnswer(page).locator('.text', { hasText: 'First answer.' }).waitFor();
        await expect.poll(() => status(page)).toBe('ready');
        await page.locator('#regenerate').click();
        await lastAnswer(page).locator('.text', { hasText: 'Second answer.' }).waitFor();
        expect(await page.locator('li.msg').count()).toBe(2);
        const messages = await history('regenerate');
        expect(messages.map((m) => [m.role, m.content])).toEqual([
          ['user', 'Tell me something'],
          ['assistant', 'Second answer.'],
        ]);
        await page.context().close();
      });
    });

    describe('when the model calls a tool with input its schema refuses (point 8)', () => {
      it('should show the call failed, never announce it to onToolCall, and not run the tool', async () => {
        weatherRuns = 0;
        env.emu.script([
          {
            message: {
              content: '',
              tool_calls: [{ id: 'b1', function: { name: 'get_weather', arguments: '{"city":42}' } }],
            },
          },
          { message: { content: 'Which city?' } },
        ]);
        const page = await openChat('bad-input');
        await ask(page, 'Weather?');
        const answer = lastAnswer(page);
        await answer.locator('.text', { hasText: 'Which city?' }).waitFor();
        expect(await answer.locator('.tool').getAttribute('data-state')).toBe('output-error');
        expect(await page.locator('#tool-calls').textContent()).toBe('0');
        expect(weatherRuns).toBe(0);
        expect(await page.locator('#error').count()).toBe(0);
        await page.context().close();
      });
    });

    describe('when the user writes while an approval is pending (point 7)', () => {
      it('should decline the call, say so, and answer the message without an error', async () => {
        env.emu.script([
          call('r9', 'schedule_reminder', { text: 'water' }),
          { message: { content: 'Fine, no reminder.' } },
        ]);
        const page = await openChat('write-over-approval');
        await ask(page, 'Remind me to water the plants');
        await page.getByRole('button', { name: 'Approve schedule_reminder' }).waitFor();
        await ask(page, 'Actually, never mind');
        const answer = lastAnswer(page);
        await answer.locator('.text', { hasText: 'Fine, no reminder.' }).waitFor();
        expect(await answer.locator('.data[data-type="data-declined-approvals"]').textContent()).toContain(
          'r9',
        );
        await expect.poll(() => status(page)).toBe('ready');
        expect(await page.locator('#error').count()).toBe(0);
        await page.context().close();
      });
    });

    describe('when a second tab sends while the first one streams (point 2)', () => {
      it("should show the second tab an error and let the first tab's answer finish", async () => {
        const words = Array.from({ length: 60 }, (_, i) => `n${i}`).join(' ');
        env.emu.script([{ message: { content: words }, fault: { dripMs: 250 } }]);
        const tabA = await openChat('two-tabs');
        const tabB = await openChat('two-tabs');
        await ask(tabA, 'Count to sixty');
        await lastAnswer(tabA).locator('.text', { hasText: 'n3' }).waitFor();
        await ask(tabB, 'Something else');
        await tabB.locator('#error', { hasText: 'still streaming to another page' }).waitFor();
        await lastAnswer(tabA).locator('.text', { hasText: words }).waitFor();
        await expect.poll(() => status(tabA)).toBe('ready');
        expect(await tabA.locator('#error').count()).toBe(0);
        await tabA.context().close();
        await tabB.context().close();
      });
    });

    describe('when the page loads with resume on', () => {
      it('should be ready without an error when nothing runs (204)', async () => {
        const context = await browser.newContext();
        const page = await context.newPage();
        const resumed = page.waitForResponse((response) => response.url().endsWith('/api/ui/idle/stream'));
        await page.goto(`${url}/?chat=idle`);
        expect((await resumed).status()).toBe(204);
        await expect.poll(() => status(page)).toBe('ready');
        expect(await page.locator('#error').count()).toBe(0);
        await context.close();
      });

      it('should pick up an answer in progress after a reload and follow it to the end', async () => {
        env.emu.script([
          {
            message: { content: 'one two three four five six seven eight nine ten' },
            fault: { dripMs: 200 },
          },
        ]);
        const page = await openChat('live');
        await ask(page, 'Count to ten');
        await lastAnswer(page).locator('.text', { hasText: 'three' }).waitFor();
        await page.reload();
        await lastAnswer(page)
          .locator('.text', { hasText: 'one two three four five six seven eight nine ten' })
          .waitFor();
        expect(await page.locator('li.msg.user').allTextContents()).toEqual(['Count to ten']);
        await expect.poll(() => status(page)).toBe('ready');
        expect(await page.locator('#error').count()).toBe(0);
        await page.context().close();
      });
    });
  },
);

const redis = queueBackends.find((backend) => backend.name === 'redis')!;

// The web server runs in a child process on the test's Redis, its turns on a queue worker in another.
describe.runIf(chromiumAvailable() && redis.available)(
  'a useChat app on a chat server with queue workers, in Chromium',
  { timeout: 120_000 },
  () => {
    let ns: QueueNamespace;
    let dir: string;
    let browser: Browser;
    const children: ChildProcess[] = [];
    let serverConfig: UseChatServerConfig;

    const spawnProcess = (file: string, env: Record<string, string>) => {
      const child = fork(fileURLToPath(new URL(file, import.meta.url)), {
        execArgv: ['--import', 'tsx'],
        env: { ...process.env, ...env },
        stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      });
      children.push(child);
      return new Promise<{ child: ChildProcess; url: string }>((resolve, reject) => {
        child.once('message', (message) => resolve({ child, url: (message as { url?: string }).url ?? '' }));
        child.once('exit', (code) => reject(new Error(`${file} exited with ${code} before it was ready`)));
      });
    };
    const startServer = (port: number) =>
      spawnProcess('./fixtures/use-chat-queue-server.ts', {
        USE_CHAT_SERVER_CONFIG: JSON.stringify({ ...serverConfig, port }),
      });

    beforeAll(async () => {
      ns = redis.create();
      dir = await mkdtemp(join(tmpdir(), 'svc-use-chat-'));
      const scriptFile = join(dir, 'app.js');
      await writeFile(scriptFile, await bundleApp());
      await writeFile(join(dir, 'tools.log'), '');
      serverConfig = {
        port: 0,
        redisUrl: ns.storeOptions.url,
        storePrefix: ns.storeOptions.prefix ?? '',
        queueName: ns.queueName,
        scriptFile,
        page: PAGE,
      };
      const worker: QueueChatProcessConfig = {
        role: 'worker',
        backend: 'redis',
        connection: ns.storeOptions.url,
        store: ns.storeOptions,
        queueName: ns.queueName,
        baseURL: env.emu.baseURL,
        toolLog: join(dir, 'tools.log'),
      };
      await spawnProcess('./fixtures/queue-chat-process.ts', {
        QUEUE_CHAT_CONFIG: JSON.stringify(worker),
        QUEUE_CHAT_API_KEY: env.emu.apiKey,
      });
      browser = await launchChromium();
    }, 120_000);

    afterAll(async () => {
      await browser?.close();
      await Promise.all(
        children.splice(0).map(async (child) => {
          if (child.exitCode !== null || child.signalCode !== null) return;
          const exited = once(child, 'exit');
          child.kill('SIGKILL');
          await exited;
        }),
      );
      await ns?.cleanup();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it('should recover by itself when its server is killed and restarted mid-answer', async () => {
      const words = Array.from({ length: 120 }, (_, i) => `word${i}`).join(' ');
      const first = await startServer(0);
      env.emu.script([{ message: { content: words }, fault: { dripMs: 250 } }]);
      const page = await (await browser.newContext()).newPage();
      await page.goto(`${first.url}/?chat=restart`);
      await page.locator('#prompt').fill('Tell me a long story');
      await page.locator('#prompt').press('Enter');
      const answer = page.locator('li.msg.assistant').last();
      await answer.locator('.text', { hasText: 'word3' }).waitFor({ timeout: 30_000 });

      const exited = once(first.child, 'exit');
      first.child.kill('SIGKILL');
      await exited;
      await startServer(Number(new URL(first.url).port));

      // No reload, no click: the page reconnects and the answer goes on to its end, whole and once.
      await answer.locator('.text', { hasText: 'word119' }).waitFor({ timeout: 60_000 });
      await expect.poll(() => page.locator('#status').textContent(), { timeout: 10_000 }).toBe('ready');
      expect(await page.locator('#error').count()).toBe(0);
      expect(await page.locator('li.msg.user').allTextContents()).toEqual(['Tell me a long story']);
      expect(await page.locator('li.msg.assistant').count()).toBe(1);
      expect(await answer.locator('.text').textContent()).toBe(words);
      await page.context().close();
    });
  },
);
