/**
 * Regenerates `screenshot-stop-queue.png` (the README's picture of Stop and the queue) in
 * real Chromium:
 *
 *   npx tsx examples/ai-sdk-chat/screenshot-stop-queue.ts
 *
 * An answer stopped mid-way (marked "stopped": exactly the text that was on screen), a
 * second answer streaming, and a third message typed meanwhile, queued until it ends.
 */
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startAiSdkDemo } from './demo.js';

const OUT = fileURLToPath(new URL('./screenshot-stop-queue.png', import.meta.url));
const demo = await startAiSdkDemo({ port: 0, tokenDelayMs: 60 });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--headless', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
});
try {
  const page = await browser.newPage({ viewport: { width: 960, height: 760 }, deviceScaleFactor: 2 });
  await page.goto(demo.url);
  const answerLength = (index: number) =>
    page.waitForFunction(
      (i) => (document.querySelectorAll('[data-testid="answer"]')[i]?.textContent ?? '').length > 70,
      index,
    );
  const ask = async (question: string) => {
    await page.getByTestId('composer').fill(question);
    await page.getByTestId('composer').press('Enter');
  };
  await ask('Tell me everything about rivers.');
  await answerLength(0);
  await page.getByTestId('stop').click();
  await page.getByTestId('stopped-badge').waitFor();
  await ask('Then just the short version, please.');
  await answerLength(1);
  await ask('And one about lakes after that.');
  await page.getByTestId('queued').waitFor();
  await page.waitForTimeout(1100); // the footer's counters refresh every second
  await page.screenshot({ path: OUT });
  console.log(`wrote ${OUT}`);
} finally {
  await browser.close();
  await demo.close();
}
