/**
 * Regenerates `screenshot.png` (the README's picture of the demo) in real Chromium:
 *
 *   npx tsx examples/chat/screenshot.ts
 *
 * An answer streamed through a cut connection, a lost response answered from the store
 * (badge), an answer stopped mid-way, and one still streaming — one model call per message.
 * Then `screenshot-stop-queue.png`: an answer stopped mid-way (exactly the text that was
 * on screen), a second streaming with Stop in Send's place, and a third message queued.
 */
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startDemo } from './demo.js';

const OUT = fileURLToPath(new URL('./screenshot.png', import.meta.url));
const STOP_QUEUE = fileURLToPath(new URL('./screenshot-stop-queue.png', import.meta.url));
const demo = await startDemo({ port: 0, modelDelayMs: 4000 });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--headless', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
});
try {
  const page = await browser.newPage({ viewport: { width: 960, height: 1040 }, deviceScaleFactor: 2 });
  await page.goto(demo.url);
  const ask = async (question: string, fault?: 'lose' | 'cut') => {
    if (fault) await page.getByTestId(`trouble-${fault}`).click();
    await page.getByTestId('composer').fill(question);
    await page.getByTestId('send').click();
  };
  /** Waits until the answer being streamed shows at least `chars` characters. */
  const streamed = (chars: number) =>
    page.waitForFunction(
      (n) => (document.querySelector('[data-testid="streaming-text"]')?.textContent?.length ?? 0) >= n,
      chars,
      { timeout: 30_000 },
    );
  const answers = page.getByTestId('answer');
  await ask('Why would one chat message ever be answered twice?', 'cut');
  await answers.nth(0).waitFor({ timeout: 30_000 });
  await ask('What if the network drops your reply?', 'lose');
  await answers.nth(1).waitFor({ timeout: 30_000 });
  await ask('Write me a long poem. (I will press Stop.)');
  await streamed(60);
  await page.getByTestId('stop').click();
  await answers.nth(2).waitFor({ timeout: 30_000 });
  await ask('And if I reload while you write?');
  await streamed(50);
  await page.waitForTimeout(1200); // the footer's counters refresh every second
  await page.screenshot({ path: OUT });
  console.log(`wrote ${OUT}`);

  // Stop and the queue, on a fresh page (its own storage):
  const second = await browser.newPage({ viewport: { width: 960, height: 760 }, deviceScaleFactor: 2 });
  await second.goto(demo.url);
  const streamedSome = () =>
    second.waitForFunction(() => (document.querySelector('[data-testid="streaming-text"]')?.textContent ?? '').length > 60);
  const askNext = async (question: string) => {
    await second.getByTestId('composer').fill(question);
    await second.getByTestId('composer').press('Enter');
  };
  await askNext('Tell me everything about rivers.');
  await streamedSome();
  await second.getByTestId('stop').click();
  await second.getByTestId('stopped-badge').waitFor();
  await askNext('Then just the short version, please.');
  await streamedSome();
  await askNext('And one about lakes after that.');
  await second.getByTestId('queued').waitFor();
  await second.waitForTimeout(1100); // the footer's counters refresh every second
  await second.screenshot({ path: STOP_QUEUE });
  console.log(`wrote ${STOP_QUEUE}`);
} finally {
  await browser.close();
  await demo.close();
}
