/**
 * The real browser for the end-to-end suite: Debian's `chromium` driven by
 * playwright-core — never a downloaded browser. Under CI a missing binary fails the
 * suite with what to install; locally the suite is skipped with a visible warning.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium } from 'playwright-core';

const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const ARGS = [
  '--no-sandbox',
  '--headless',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * True when the suite can run. Throws under `CI=true` when Chromium is missing, so CI
 * never passes by skipping; warns (once, loudly) otherwise.
 */
export function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM_PATH)) return true;
  const message =
    `answer-once e2e: no Chromium at ${CHROMIUM_PATH}. Install it with ` +
    '`sudo apt-get install chromium` (or set CHROMIUM_PATH).';
  if (process.env.CI === 'true') throw new Error(message);
  console.warn(`\n⚠️  ${message} Skipping the browser suite.\n`);
  return false;
}

/**
 * Launches headless Chromium. Playwright gives every launch a fresh, throwaway
 * user-data-dir (removed on `close()`), so no profile state leaks between runs.
 */
function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ARGS, timeout: 60_000 });
}

/**
 * Starts a demo server and Chromium at once and resolves with both. If either fails to
 * start, the one that did is stopped before the failure is thrown: nothing is left running.
 */
export async function launchWithServer<T extends { stop(): Promise<void> }>(starting: Promise<T>): Promise<[T, Browser]> {
  const [server, browser] = await Promise.allSettled([starting, launchChromium()]);
  if (server.status === 'fulfilled' && browser.status === 'fulfilled') return [server.value, browser.value];
  if (server.status === 'fulfilled') await server.value.stop();
  if (browser.status === 'fulfilled') await browser.value.close();
  throw server.status === 'rejected' ? server.reason : (browser as PromiseRejectedResult).reason;
}

/**
 * Chromium with every site's data blocked, as a user sets it ("Block all cookies":
 * `localStorage` throws `SecurityError`, IndexedDB refuses to open): a persistent context
 * over a throwaway profile whose preferences say so, removed on `close()`.
 */
export async function launchWithSiteDataBlocked(): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const profile = await mkdtemp(join(tmpdir(), 'answer-once-e2e-'));
  await mkdir(join(profile, 'Default'));
  const preferences = { profile: { default_content_setting_values: { cookies: 2 } } };
  await writeFile(join(profile, 'Default', 'Preferences'), JSON.stringify(preferences));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ARGS,
    timeout: 60_000,
  });
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
