/**
 * Regenerates `screenshot.png` (its README's picture of the AI SDK demo) in real Chromium:
 *
 *   npx tsx examples/ai-sdk-chat/screenshot.ts
 *
 * An answer whose stream the server cut mid-answer (it continued: every token once), one
 * whose model failed halfway (it ran again; the new answer replaced the partial one in
 * place), and a third still streaming with its Stop button. Then
 * `screenshot-stop-queue.png`: an answer stopped mid-way and marked so, a second
 * streaming, and a third message queued until it ends.
 */
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startAiSdkDemo } from './demo.js';

const OUT = fileURLToPath(new URL('./screenshot.png', import.meta.url));
const STOP_QUEUE = fileURLToPath(new URL('./screenshot-stop-queue.png', import.meta.url));
const demo = await startAiSdkDemo({ port: 0, tokenDelayMs: 40 });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--headless', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
});
try {
  const page = await browser.newPage({ viewport: { width: 960, height: 900 }, deviceScaleFactor: 2 });
  await page.goto(demo.url);
  const ready = () => page.locator('[data-testid="status"][data-state="ready"]').waitFor({ timeout: 30_000 });
  const ask = async (question: string) => {
    await page.getByTestId('composer').fill(question);
    await page.getByTestId('send').click();
  };
  await page.getByTestId('trouble-cut').click();
  await ask('What if the connection drops mid-answer?');
  await page.getByTestId('answer').first().waitFor();
  await ready();
  await page.getByTestId('trouble-break').click();
  await ask('And if the model itself fails halfway?');
  await page.getByTestId('answer').nth(1).waitFor();
  await ready();
  await ask('Write me a long poem, slowly.');
  await page.waitForFunction(() => (document.querySelectorAll('[data-testid="answer"]')[2]?.textContent ?? '').length > 90);
  await page.waitForTimeout(1100); // the footer's counters refresh every second
  await page.screenshot({ path: OUT });
  console.log(`wrote ${OUT}`);

  // Stop and the queue, on a fresh page (its own storage):
  const second = await browser.newPage({ viewport: { width: 960, height: 760 }, deviceScaleFactor: 2 });
  await second.goto(demo.url);
  const answerLonger = (index: number) =>
    second.waitForFunction(
      (i) => (document.querySelectorAll('[data-testid="answer"]')[i]?.textContent ?? '').length > 70,
      index,
    );
  const askNext = async (question: string) => {
    await second.getByTestId('composer').fill(question);
    await second.getByTestId('composer').press('Enter');
  };
  await askNext('Tell me everything about rivers.');
  await answerLonger(0);
  await second.getByTestId('stop').click();
  await second.getByTestId('stopped-badge').waitFor();
  await askNext('Then just the short version, please.');
  await answerLonger(1);
  await askNext('And one about lakes after that.');
  await second.getByTestId('queued').waitFor();
  await second.waitForTimeout(1100); // the footer's counters refresh every second
  await second.screenshot({ path: STOP_QUEUE });
  console.log(`wrote ${STOP_QUEUE}`);
} finally {
  await browser.close();
  await demo.close();
}
