/**
 * Regenerates `screenshot-offline.png` (its README's picture of a message sent offline)
 * in real Chromium:
 *
 *   npx tsx examples/ai-sdk-chat/screenshot-offline.ts
 *
 * One answer, then the browser offline: the next message waits in the outbox and the two
 * after it in the page's queue, "waiting for a connection · 3 queued"; back online they
 * go in order.
 */
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startAiSdkDemo } from './demo.js';

const OUT = fileURLToPath(new URL('./screenshot-offline.png', import.meta.url));
const demo = await startAiSdkDemo({ port: 0, tokenDelayMs: 40 });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--headless', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
});
try {
  const context = await browser.newContext({ viewport: { width: 960, height: 700 }, deviceScaleFactor: 2 });
  const page = await context.newPage();
  await page.goto(demo.url);
  const ask = async (question: string) => {
    await page.getByTestId('composer').fill(question);
    await page.getByTestId('composer').press('Enter'); // Stop takes Send's place while one waits
  };
  await ask('Will you answer me on the train?');
  await page.getByTestId('answer').first().waitFor();
  await page.locator('[data-testid="status"][data-state="ready"]').waitFor({ timeout: 30_000 });
  await page.waitForTimeout(1100); // the footer's counters refresh every second
  await context.setOffline(true);
  await ask('Entering the tunnel now.');
  await ask('Still there?');
  await ask('Tell me when we are out.');
  await page.getByTestId('queued').nth(1).waitFor({ timeout: 30_000 });
  await page.getByTestId('offline').waitFor({ timeout: 30_000 });
  await page.screenshot({ path: OUT });
  console.log(`wrote ${OUT}`);
} finally {
  await browser.close();
  await demo.close();
}
