import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';

/** Debian's chromium package; Playwright never downloads a browser here. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Flags for a quiet headless browser with a fresh profile (Playwright's launch() makes a temporary one). */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Whether the browser suites can run: with CI=true a missing browser is an error (the suite fails);
 * elsewhere the suite is skipped and one line says how to install it.
 */
export function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM_PATH)) return true;
  if (process.env.CI === 'true')
    throw new Error(`${CHROMIUM_PATH} is missing and CI=true: install it with apt-get install -y chromium`);
  console.warn(
    `browser tests skipped: ${CHROMIUM_PATH} not found (install: sudo apt-get install -y chromium)`,
  );
  return false;
}

/** Launches headless Chromium. */
export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
}
