import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import type { Store } from '../../src/agent/durable/store.js';
import { RunState } from '../../src/agent/run-state.js';
import { SvcClient } from '../../src/api/svc-client.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/types.js';
import { recordReplay } from '../../src/testing/record-replay.js';
import {
  createInspectorHandler,
  type InspectorHandler,
} from '../../src/web/inspector/create-inspector-handler.js';
import { eventually } from '../helpers/eventually.js';
import {
  INSPECTED_AGENT,
  inspectedAgent,
  inspectedClient,
  inspectedTools,
  makeRichRun,
  makeTakenOverRun,
} from '../helpers/inspector-runs.js';
import { chromiumAvailable, launchChromium } from '../helpers/launch-chromium.js';
import { type OpenedSharedState, sharedStateBackends } from '../helpers/shared-state-backends.js';

// `SCREENSHOTS=1 npx vitest run test/web/inspector-browser.integration.test.ts` also saves the pictures of docs/inspector.md.
const SCREENSHOTS = process.env.SCREENSHOTS === '1';

let emu: Emulator;
let client: SvcClient;
let browser: Browser;

beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  client = inspectedClient(emu);
  if (chromiumAvailable()) browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await client?.close();
  await emu?.close();
});

describe.runIf(chromiumAvailable()).each(sharedStateBackends.filter((backend) => backend.available))(
  'the inspector page on $name',
  (backend) => {
    let opened: OpenedSharedState;
    let store: Store;
    let handler: InspectorHandler;
    let server: Server;
    let url: string;
    let richRunId: string;
    let takenOverId: string;
    let page: Page;
    const pageErrors: Error[] = [];

    beforeAll(async () => {
      opened = await backend.open({ onWarning: () => undefined });
      store = opened.a;
      emu.reset();
      richRunId = await makeRichRun(emu, client, store);
      takenOverId = await makeTakenOverRun(emu, client, store);
      emu.script([{ message: { content: 'A plain answer.' } }]);
      await new Agent({ name: 'other', client, model: 'svc-3.5-flash', store }).run('Say something plain', {
        session: 'plain-session',
      });
      handler = createInspectorHandler({
        store,
        agents: { [INSPECTED_AGENT]: inspectedAgent(client, store) },
      });
      server = createServer((req, res) => void handler.node(req, res));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/inspector/`;
      page = await browser.newPage();
      page.on('pageerror', (error) => pageErrors.push(error));
    }, 60_000);
    afterAll(async () => {
      expect(pageErrors).toEqual([]);
      await page?.close();
      await handler?.close();
      server?.closeAllConnections();
      await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
      await opened?.cleanup();
    });

    const rowIds = () => page.$$eval('tbody tr', (rows) => rows.map((row) => row.getAttribute('data-run')));

    describe('when the runs list is open', () => {
      it('should list the runs with live counts, filter them and sort them from the keyboard', async () => {
        await page.goto(url);
        await page.waitForSelector(`tr[data-run="${richRunId}"]`);
        expect(await rowIds()).toHaveLength(3);
        expect(await page.textContent('[data-status="completed"]')).toBe('Completed (3)');

        await page.fill('input[name="agent"]', 'other');
        await page.press('input[name="agent"]', 'Enter');
        await eventually(async () => (await rowIds()).length === 1);

        await page.fill('input[name="agent"]', '');
        await page.fill('input[name="q"]', 'trip to paris');
        await page.click('form.filters button[type="submit"]');
        await eventually(async () => JSON.stringify(await rowIds()) === JSON.stringify([richRunId]));

        await page.goto(`${url}#/`);
        await page.waitForSelector('tbody tr[data-run]');
        await page.focus('[data-sort="tokens"]');
        await page.keyboard.press('Enter');
        await page.waitForFunction(() =>
          (globalThis as unknown as PageGlobals).location.hash.includes('sort=tokens'),
        );
        await eventually(async () => (await rowIds()).length === 3);
        const tokens = async () =>
          page.$$eval('td[data-tokens]', (cells) =>
            cells.map((cell) => Number(cell.getAttribute('data-tokens'))),
          );
        await eventually(async () => isSorted(await tokens(), 'desc'));
        await page.click('[data-sort="tokens"]');
        await page.waitForFunction(() =>
          (globalThis as unknown as PageGlobals).location.hash.includes('order=asc'),
        );
        await eventually(async () => isSorted(await tokens(), 'asc'));
        if (SCREENSHOTS && backend.name === 'memoryStore') {
          await page.setViewportSize({ width: 1280, height: 560 });
          await page.screenshot({ path: 'docs/inspector-list.png' });
        }
      });
    });

    describe('when a session is opened from the list', () => {
      it("should show the session's runs with their tokens and costs", async () => {
        await page.goto(`${url}#/`);
        await page.click('a[href="#/sessions/plain-session"]');
        await page.waitForSelector('table[aria-label="Runs of the session"] tbody tr[data-run]');
        expect(await page.$$eval('tbody tr[data-run]', (rows) => rows.length)).toBe(1);
        expect(await page.textContent('main p')).toMatch(/^1 runs · \d+ tokens · /);
      });
    });

    describe('when a run is opened', () => {
      it('should draw a lane per model request and tool call, with the retry, eager start, approval and takeover', async () => {
        await page.goto(`${url}#/runs/${richRunId}`);
        await page.waitForSelector(`h2[data-run="${richRunId}"]`);
        await page.waitForSelector('.gantt');
        expect(await page.$$eval('[data-lane="model"]', (lanes) => lanes.length)).toBe(3);
        expect(await page.$$eval('[data-lane="tool"]', (lanes) => lanes.length)).toBe(3);
        expect(await page.$$eval('.mark.retry', (marks) => marks.length)).toBe(1);
        expect(await page.$$eval('.seg.tool.eager', (segs) => segs.length)).toBe(1);
        expect(await page.$$eval('.seg.approval', (segs) => segs.length)).toBe(1);
        // Parallel calls of step 0: the two bars overlap in time.
        const [lookup, add] = await Promise.all(
          ['call_lookup', 'call_add'].map((id) =>
            page.$eval(`[data-id="${id}"] .seg.tool`, (seg) => {
              const box = seg.getBoundingClientRect();
              return { left: box.left, right: box.right };
            }),
          ),
        );
        expect(lookup!.left).toBeLessThan(add!.right);
        expect(add!.left).toBeLessThan(lookup!.right);
        expect(await page.$$eval('[data-tool-call]', (cards) => cards.length)).toBe(3);
        expect(await page.$$eval('[data-checkpoint]', (items) => items.length)).toBe(3);
        if (SCREENSHOTS && backend.name === 'memoryStore') {
          await page.setViewportSize({ width: 1280, height: 900 });
          await page.screenshot({ path: 'docs/inspector-run.png' });
          await page.emulateMedia({ colorScheme: 'dark' });
          await page.screenshot({ path: 'docs/inspector-run-dark.png' });
          await page.emulateMedia({ colorScheme: 'light' });
        }

        await page.goto(`${url}#/runs/${takenOverId}`);
        await page.waitForSelector(`h2[data-run="${takenOverId}"]`);
        await page.waitForSelector('[data-lane="resumes"] .mark.takeover');
        const title = await page.getAttribute('[data-lane="resumes"] .mark.takeover', 'title');
        expect(title).toContain('takeover by');
        expect(title).toContain('1 call(s) in flight settled');
      });
    });

    describe('when a run is still running', () => {
      it('should follow it live until it completes', async () => {
        let release!: () => void;
        const hold = new Promise<void>((resolve) => {
          release = resolve;
        });
        emu.script([
          {
            message: {
              content: '',
              tool_calls: [{ id: 'call_live', function: { name: 'add', arguments: '{"a":4,"b":4}' } }],
            },
          },
          { message: { content: 'Eight.' } },
        ]);
        const runId = `live-${backend.name}`;
        const running = inspectedAgent(client, store, hold).run('Add four and four', { runId });
        await eventually(async () => (await store.getRun(runId))?.inFlight?.includes('call_live') === true);
        await page.goto(`${url}#/runs/${runId}`);
        await page.waitForSelector(`h2[data-run="${runId}"]`);
        await page.waitForSelector(`h2[data-run="${runId}"] .status.running`);
        await page.waitForSelector('[data-id="call_live"]');
        release();
        await running;
        await page.waitForSelector(`h2[data-run="${runId}"] .status.completed`, { timeout: 10_000 });
        expect(await page.textContent('.chat')).toContain('Eight.');
      });
    });

    describe('when a run is forked from step 2', () => {
      it('should complete the fork on the emulator and link both ways', async () => {
        await page.goto(`${url}#/runs/${richRunId}`);
        await page.waitForSelector(`h2[data-run="${richRunId}"]`);
        await page.waitForSelector('#fork-button:not([disabled])');
        await page.selectOption('#fork-step', '2');
        await page.click('#fork-button');
        await page.waitForFunction(
          (parent) => !(globalThis as unknown as PageGlobals).location.hash.includes(parent),
          richRunId,
        );
        const forkId = decodeURIComponent(new URL(page.url()).hash.replace('#/runs/', ''));
        await page.waitForSelector(`h2[data-run="${forkId}"] .status.completed`, { timeout: 10_000 });
        expect(await page.getAttribute('a[data-link="parent"]', 'href')).toBe(`#/runs/${richRunId}`);
        expect((await store.getRun(forkId))?.forkedFrom).toEqual({ runId: richRunId, step: 2 });
        await page.click('a[data-link="parent"]');
        await page.waitForSelector(`a[data-link="fork"][href="#/runs/${forkId}"]`);
      });
    });

    describe('when a run is exported', () => {
      it('should download a recording that replays the run offline', async () => {
        await page.goto(`${url}#/runs/${richRunId}`);
        await page.waitForSelector(`h2[data-run="${richRunId}"]`);
        await page.waitForSelector('#export-link');
        const href = await page.getAttribute('#export-link', 'href');
        const text = await page.evaluate(async (link) => (await fetch(link!)).text(), href);
        const dir = await mkdtemp(join(tmpdir(), 'svc-inspector-browser-'));
        try {
          await writeFile(join(dir, 'exported.json'), text);
          const recording = await recordReplay({ dir, name: 'exported', mode: 'replay' });
          const replayClient = new SvcClient({
            ...recording.clientOptions,
            baseURL: 'http://127.0.0.1:9',
            maxRetries: 0,
          });
          const agent = new Agent({
            name: INSPECTED_AGENT,
            client: replayClient,
            model: 'svc-3.5-flash',
            instructions: 'Answer with the tools.',
            tools: inspectedTools(),
          });
          const start = RunState.fromJSON((JSON.parse(text) as { run: { start: never } }).run.start, agent);
          const paused = await agent.run(start);
          paused.state.approve('call_email');
          expect((await agent.run(paused.state)).text).toBe('Paris has 5000 people; the email is sent.');
          await recording.close();
          await replayClient.close();
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      });
    });
  },
);

/** What the predicates Playwright runs in the page read (this file is typed without the DOM). */
interface PageGlobals {
  location: { hash: string };
}

function isSorted(values: number[], order: 'asc' | 'desc'): boolean {
  return values.every(
    (value, i) => i === 0 || (order === 'asc' ? values[i - 1]! <= value : values[i - 1]! >= value),
  );
}
