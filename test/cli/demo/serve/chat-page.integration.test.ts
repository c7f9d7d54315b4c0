import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SvcClient } from '../../../../src/api/svc-client.js';
import { createServeAgent } from '../../../../src/cli/demo/serve/serve-agent.js';
import { type ChatServer, startChatServer } from '../../../../src/cli/demo/serve/start-chat-server.js';
import { demoTools } from '../../../../src/cli/demo/tools/demo-tools.js';
import { startEmulator } from '../../../../src/emulator/index.js';
import type { Emulator } from '../../../../src/emulator/types.js';
import { defineTool } from '../../../../src/tools/define-tool.js';
import { chromiumAvailable, launchChromium } from '../../../helpers/launch-chromium.js';
import { tinyPng } from '../../../helpers/media-bytes.js';

// The few DOM globals the page callbacks read: the test program is compiled without the DOM lib.
declare const document: {
  activeElement: { id: string; textContent: string | null } | null;
  documentElement: { scrollWidth: number };
};
declare const window: { innerWidth: number };
declare const localStorage: { getItem(key: string): string | null };

/** Where the screenshots go (git-ignored); the README shows a copy under docs/. */
const SCREENSHOTS = '.artifacts/screenshots';

/** A tool slow enough to reload the page while it runs. */
const slowSearch = defineTool({
  name: 'slow_search',
  description: 'A slow search through the archive',
  parameters: z.object({ topic: z.string().optional() }),
  execute: async ({ topic }, { signal }) => {
    // A tool slow enough to be stopped from the page (the timer is cleared on abort).
    await new Promise((resolve, reject) => {
      const timer = setTimeout(resolve, 2_000);
      signal.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(signal.reason);
      });
    });
    return { found: `three archived notes about ${topic ?? 'that'}` };
  },
});

// A real browser on two cores shared with the rest of the suite: give each test more than the default 20 s.
describe.runIf(chromiumAvailable())('svc-agents serve page in Chromium', { timeout: 60_000 }, () => {
  let emu: Emulator;
  let client: SvcClient;
  let server: ChatServer;
  let browser: Browser;

  beforeAll(async () => {
    emu = await startEmulator({ port: 0 });
    client = new SvcClient({ apiKey: emu.apiKey, baseURL: emu.baseURL, maxRetries: 0 });
    server = await startChatServer({
      client,
      port: 0,
      subtitle: 'demo agent on the embedded emulator',
      agent: createServeAgent({
        model: 'svc-3.5-flash-2603',
        tools: [...demoTools(), slowSearch],
        instructions: 'You are a helpful assistant.',
      }),
    });
    browser = await launchChromium();
    mkdirSync(SCREENSHOTS, { recursive: true });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await client?.close();
    await emu?.close();
  });

  async function openPage(width = 1280, height = 800): Promise<Page> {
    const context = await browser.newContext({ viewport: { width, height } });
    const page = await context.newPage();
    await page.goto(server.url);
    return page;
  }

  async function ask(page: Page, text: string) {
    // As a person would, wait until the previous answer is complete: Enter does nothing while one streams,
    // and the last text may show before the run's final events have arrived.
    await expect.poll(() => page.locator('#send').isEnabled()).toBe(true);
    const box = page.getByLabel('Message');
    await box.fill(text);
    await box.press('Enter');
  }

  const lastAssistant = (page: Page) => page.locator('li.msg.assistant').last();

  describe('when a message is sent with Enter', () => {
    it('should stream the answer, with collapsible reasoning and the tool call with its arguments and result', async () => {
      const page = await openPage();
      await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('prompt');
      await ask(page, 'What is the weather in Paris?');
      await expect
        .poll(() => page.locator('li.msg.user').last().textContent())
        .toContain('What is the weather in Paris?');
      const answer = lastAssistant(page);
      // The answer reads the tool result back in words: condition, temperature with its unit.
      await answer.locator('.text', { hasText: 'The weather in Paris: light rain' }).waitFor();
      expect(await answer.locator('.text').last().textContent()).toContain('14 °C');
      const tool = answer.locator('.tool');
      expect(await tool.locator('h2').textContent()).toContain('get_weather');
      expect(await tool.locator('.args').textContent()).toContain('Paris');
      expect(await tool.locator('.result').textContent()).toMatch(/Result: .*condition/s);
      const reasoning = answer.locator('details.reasoning').first();
      expect(await reasoning.getAttribute('open')).toBeNull();
      await reasoning.locator('summary').click();
      expect(await reasoning.getAttribute('open')).not.toBeNull();
      expect(await reasoning.locator('pre').textContent()).toContain('I should call get_weather');
      await page.context().close();
    });
  });

  describe('when a tool needs approval', () => {
    it('should run it after Approve (from the keyboard) and tell the model after Reject', async () => {
      const page = await openPage();
      await ask(page, 'Schedule a reminder to water the plants');
      const approve = page.getByRole('button', { name: 'Approve schedule_reminder' });
      await approve.waitFor();
      // The Approve button takes the focus, so Enter decides without the mouse.
      await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Approve');
      await page.keyboard.press('Enter');
      const first = lastAssistant(page);
      await first.locator('.tool .result', { hasText: '"scheduled": true' }).waitFor();
      await first.locator('.text', { hasText: 'scheduled true' }).waitFor();

      await ask(page, 'Schedule a reminder to call the bank');
      // The new question's button, not the first one (disabled since Approve): a locator that resolves
      // before the new buttons render would hold on to that disabled one until the click times out.
      await page.getByRole('button', { name: 'Reject schedule_reminder', disabled: false }).click();
      const second = lastAssistant(page);
      await second.locator('.tool .result', { hasText: 'rejected' }).waitFor();
      expect(await second.locator('.tool h2 .state').textContent()).toBe('(failed)');
      // The model was told of the rejection and says so instead of pretending it ran.
      await second
        .locator('.text', { hasText: 'I did not run schedule_reminder: it was rejected' })
        .waitFor();
      await page.context().close();
    });
  });

  describe('when the page is reloaded while an approval is pending', () => {
    it('should show Approve/Reject again, and approving runs the tool and finishes the answer', async () => {
      const page = await openPage();
      await ask(page, 'Schedule a reminder to water the plants');
      await page.getByRole('button', { name: 'Approve schedule_reminder' }).waitFor();
      await page.reload();
      const approve = page.getByRole('button', { name: 'Approve schedule_reminder', disabled: false });
      await approve.waitFor();
      expect(
        await page.getByRole('button', { name: 'Reject schedule_reminder', disabled: false }).count(),
      ).toBe(1);
      expect(await page.locator('li.msg.user').last().textContent()).toContain(
        'Schedule a reminder to water the plants',
      );
      await approve.click();
      const answer = lastAssistant(page);
      await answer.locator('.tool .result', { hasText: '"scheduled": true' }).waitFor();
      await answer.locator('.text', { hasText: 'scheduled true' }).waitFor();
      // The conversation goes on: the next message is answered (no pending call left).
      await ask(page, 'What is 2+2?');
      await lastAssistant(page).locator('.text', { hasText: '4' }).waitFor();
      await page.context().close();
    });
  });

  describe('when the page is reloaded while the answer streams', () => {
    it('should reconnect to the run and show the whole answer', async () => {
      const page = await openPage();
      await ask(page, 'Run the slow search about comets');
      await lastAssistant(page).locator('.tool h2', { hasText: 'slow_search' }).waitFor();
      await page.reload();
      const answer = lastAssistant(page);
      await answer
        .locator('.text', { hasText: 'found three archived notes about comets' })
        .waitFor({ timeout: 10_000 });
      expect(await page.locator('li.msg.user').last().textContent()).toContain(
        'Run the slow search about comets',
      );
      expect(await answer.locator('.tool').count()).toBe(1);
      await page.context().close();
    });
  });

  describe('when Stop is pressed mid-answer', () => {
    it('should stop the run on the server, keep what was shown, and take the next message', async () => {
      const page = await openPage();
      await ask(page, 'Run the slow search about stars');
      await lastAssistant(page).locator('.tool h2', { hasText: 'slow_search' }).waitFor();
      await page.getByRole('button', { name: 'Stop' }).click();
      await lastAssistant(page).locator('.error-text', { hasText: 'The run was stopped.' }).waitFor();
      await expect.poll(() => page.locator('#send').isEnabled()).toBe(true);
      expect(await page.getByRole('button', { name: 'Stop' }).isHidden()).toBe(true);
      const sessionId = await page.evaluate(() => localStorage.getItem('svc-agents.session'));
      const session = (await (await fetch(`${server.url}/api/sessions/${sessionId}`)).json()) as {
        activeRunId: string | null;
        messages: Array<{ role: string; tool_calls?: unknown }>;
      };
      expect(session.activeRunId).toBeNull();
      expect(session.messages[0]).toMatchObject({ role: 'user', content: 'Run the slow search about stars' });
      expect(session.messages.some((message) => message.tool_calls !== undefined)).toBe(false);
      await ask(page, 'What time is it?');
      await expect.poll(() => page.locator('li.msg.assistant').count()).toBe(2);
      await expect.poll(() => page.locator('#send').isEnabled()).toBe(true);
      expect(await lastAssistant(page).locator('.error-text').count()).toBe(0);
      await page.context().close();
    });
  });

  describe('when an image is attached', () => {
    it('should show it with the next message and send it to the vision model', async () => {
      const page = await openPage();
      await page.getByLabel('Attach an image for the vision model').setInputFiles({
        name: 'pixel.png',
        mimeType: 'image/png',
        buffer: tinyPng(),
      });
      await page.getByRole('status').filter({ hasText: 'pixel.png goes with what you send next' }).waitFor();
      const before = emu.requests().length;
      await ask(page, 'What is in this picture?');
      await page.locator('li.msg.user img.attached[alt="pixel.png"]').waitFor();
      await expect.poll(() => page.locator('#send').isEnabled()).toBe(true);
      const completion = () =>
        emu
          .requests()
          .slice(before)
          .find((r) => r.path === '/v1/chat/completions');
      // The run may execute a moment after the page's request (the handler answers once the run is claimed).
      await expect.poll(completion).toBeDefined();
      const request = completion()?.body as {
        model: string;
        messages: Array<{ role: string; content: unknown }>;
      };
      expect(request.model).toBe('svc-1o-turbo-vision');
      expect(request.messages.at(-1)?.content).toEqual([
        { type: 'text', text: 'What is in this picture?' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${tinyPng().toString('base64')}` } },
      ]);
      await page.context().close();
    });
  });

  describe('when the agent speaks', () => {
    it('should play the spoken answer: a wav the browser decodes', async () => {
      const speaking = await startChatServer({
        client,
        port: 0,
        agent: createServeAgent({
          model: 'svc-audio-2',
          tools: [],
          instructions: 'Be brief.',
          modelSettings: { modalities: ['text', 'audio'], audio: { voice: 'qingchunshaonv', format: 'pcm' } },
        }),
      });
      try {
        const context = await browser.newContext();
        const page = await context.newPage();
        await page.goto(speaking.url);
        await ask(page, 'Say good morning');
        const player = lastAssistant(page).locator('audio[aria-label="Spoken answer"]');
        await player.waitFor();
        // The browser reads the wav header and finds a playable duration.
        await expect
          .poll(() => player.evaluate((audio) => (audio as unknown as { duration: number }).duration))
          .toBeGreaterThan(0);
        expect(await lastAssistant(page).locator('.text').textContent()).not.toBe('');
        await context.close();
      } finally {
        await speaking.close();
      }
    });
  });

  describe('when a file is uploaded into the knowledge base', () => {
    it('should answer a question about it, citing the file, and look right at desktop and phone widths', async () => {
      const page = await openPage();
      await page.getByLabel('Add a file to the knowledge base').setInputFiles({
        name: 'launch-notes.txt',
        mimeType: 'text/plain',
        buffer: Buffer.from('The project codename is BLUEFINCH. The launch is planned for March 2027.\n'),
      });
      await page
        .getByRole('status')
        .filter({ hasText: 'launch-notes.txt is in the knowledge base' })
        .waitFor();
      await ask(page, 'What is the project codename?');
      const answer = lastAssistant(page).locator('.text', { hasText: 'According to launch-notes.txt' });
      await answer.waitFor();
      expect(await answer.textContent()).toContain('BLUEFINCH');

      await ask(page, 'What is 17*23?');
      await lastAssistant(page).locator('.text', { hasText: '391' }).waitFor();
      await ask(page, 'Schedule a reminder to review the launch notes');
      await page.getByRole('button', { name: 'Approve schedule_reminder' }).waitFor();
      await page.screenshot({ path: `${SCREENSHOTS}/chat-desktop.png` });
      await page.setViewportSize({ width: 390, height: 844 });
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await page.locator('main').evaluate((main) => main.scrollTo(0, main.scrollHeight));
      await page.screenshot({ path: `${SCREENSHOTS}/chat-phone.png` });
      await page.context().close();
    });
  });
});
