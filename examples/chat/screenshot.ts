/**
 * Regenerates `screenshot.png` (the README's picture of the demo) in real Chromium:
 *
 *   npx tsx examples/chat/screenshot.ts
 *
 * A normal answer, a lost response answered from the store (badge), a 503 retried, and
 * a slow model the page is still waiting for — all for one model call per message.
 */
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startDemo } from './demo.js';

const OUT = fileURLToPath(new URL('./screenshot.png', import.meta.url));
const demo = await startDemo({ port: 0, modelDelayMs: 1200 });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--headless', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
});
try {
  const page = await browser.newPage({ viewport: { width: 960, height: 1040 }, deviceScaleFactor: 2 });
  await page.goto(demo.url);
  const ask = async (question: string, fault?: 'lose' | '503' | 'slow') => {
    if (fault) await page.getByTestId(`trouble-${fault}`).click();
    await page.getByTestId('composer').fill(question);
    await page.getByTestId('send').click();
  };
  const answers = page.getByTestId('answer');
  await ask('Why would one chat message ever be answered twice?');
  await answers.nth(0).waitFor();
  await ask('What if the network drops your reply?', 'lose');
  await answers.nth(1).waitFor();
  await ask('And when the gateway says 503?', '503');
  await answers.nth(2).waitFor();
  await ask('Take your time: write me a long poem.', 'slow');
  await page.locator('[data-testid="status"][data-state="waiting"]').waitFor({ timeout: 30_000 });
  await page.waitForTimeout(1200); // the footer's counters refresh every second
  await page.screenshot({ path: OUT });
  console.log(`wrote ${OUT}`);
} finally {
  await browser.close();
  await demo.close();
}
