/**
 * Regenerates `screenshot-offline.png` (its README's picture of a send made offline) in
 * real Chromium:
 *
 *   npx tsx examples/chat/screenshot-offline.ts
 *
 * One question answered, then the browser offline: two more wait in the outbox,
 * "waiting for a connection · 2 queued", and go in order once it is back.
 */
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startDemo } from './demo.js';

const OUT = fileURLToPath(new URL('./screenshot-offline.png', import.meta.url));
const demo = await startDemo({ port: 0, modelDelayMs: 1500 });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--headless', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
});
try {
  const context = await browser.newContext({ viewport: { width: 960, height: 760 }, deviceScaleFactor: 2 });
  const page = await context.newPage();
  await page.goto(demo.url);
  const ask = async (question: string) => {
    await page.getByTestId('composer').fill(question);
    await page.getByTestId('send').click();
  };
  await ask('Will you answer me on the train?');
  await page.getByTestId('answer').first().waitFor({ timeout: 30_000 });
  await page.waitForTimeout(1200); // the footer's counters refresh every second
  await context.setOffline(true);
  await ask('Entering the tunnel now.');
  await ask('Still here? (sent in the tunnel too)');
  await page.getByText('waiting for a connection · 2 queued').waitFor({ timeout: 30_000 });
  await page.screenshot({ path: OUT });
  console.log(`wrote ${OUT}`);
} finally {
  await browser.close();
  await demo.close();
}
