import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { renderEvalReport, runEval } from '../../../src/testing/index.js';
import { chromiumAvailable, launchChromium } from '../../helpers/launch-chromium.js';
import { useAgentTestEnv } from '../../helpers/use-agent-test-env.js';
import { weatherEval } from './weather-eval.js';

const env = useAgentTestEnv();

describe.runIf(chromiumAvailable())('the eval report in Chromium', { timeout: 60_000 }, () => {
  it('should render the table and the three charts offline, with no request leaving the page', async () => {
    const result = await runEval(
      weatherEval([
        { name: 'flash', tools: true },
        { name: '3.7-flash', tools: true, model: 'svc-3.7-flash' },
        { name: 'no-tools', tools: false },
      ]),
      { client: env.client },
    );
    const dir = await mkdtemp(join(tmpdir(), 'svc-eval-report-'));
    const file = join(dir, 'report.html');
    await writeFile(file, renderEvalReport([result]));
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
      const requests: string[] = [];
      page.on('request', (request) => requests.push(request.url()));
      await page.goto(pathToFileURL(file).href);
      expect(await page.locator('h2').first().textContent()).toContain('weather');
      expect(await page.locator('table tr').count()).toBe(4);
      expect(await page.locator('figure svg').count()).toBe(3);
      // Bars per scorer and variant, an item dot per variant and item.
      expect(await page.locator('figure:nth-of-type(1) rect').count()).toBe(4 * 3);
      expect(await page.locator('figure:nth-of-type(3) circle').count()).toBe(60);
      expect(await page.locator('.bad li').count()).toBeGreaterThan(0);
      expect(requests).toEqual([pathToFileURL(file).href]);
      if (process.env.SVC_SCREENSHOTS)
        await page.screenshot({ path: 'docs/eval-report.png', fullPage: true });
    } finally {
      await browser.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
