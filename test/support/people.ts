/**
 * What a person does that a test robot does not: a double-click with a human gap between
 * its clicks (Playwright's `dblclick` is instant), and what requests the page made.
 */
import type { BrowserContext, Locator, Page } from 'playwright-core';

/**
 * Two clicks at the same point of `target`, the second `gapMs` after the first began —
 * whatever is under the pointer by then (Stop, when it took Send's place) gets it.
 */
export async function humanDoubleClick(page: Page, target: Locator, gapMs: number): Promise<void> {
  const box = await target.boundingBox();
  if (!box) throw new Error('humanDoubleClick: the target is not visible');
  const x = box.x + box.width / 2;
  const y = box.y + box.height / 2;
  const first = Date.now();
  await page.mouse.click(x, y);
  await page.waitForTimeout(Math.max(0, gapMs - (Date.now() - first)));
  await page.mouse.click(x, y);
}

/** Records the URL of every `method` request of `context` whose path starts with `path`, from now on. */
export function trackMethod(context: BrowserContext, method: string, path: string): string[] {
  const urls: string[] = [];
  context.on('request', (request) => {
    if (request.method() === method && new URL(request.url()).pathname.startsWith(path)) urls.push(request.url());
  });
  return urls;
}

/**
 * Clicks the element `click` selects and returns the text of the last element `read`
 * selects as it was at that very moment: what was on screen when the person clicked.
 */
export function clickReading(page: Page, click: string, read: string): Promise<string | null> {
  return page.evaluate(
    ([clickSelector, readSelector]) => {
      const shown = [...document.querySelectorAll(readSelector)].at(-1)?.textContent ?? null;
      (document.querySelector(clickSelector) as HTMLElement | null)?.click();
      return shown;
    },
    [click, read] as const,
  );
}

/**
 * The text a Stop kept, checked against the text on screen at the very click: the same,
 * or that text and the one word whose render was in flight (the UI's state had taken
 * it; the page paints it a frame after the click). Returns the text kept.
 */
export function keptAtStop(atClick: string | null, afterStop: string | null): string {
  const shown = atClick ?? '';
  const kept = afterStop ?? '';
  const inFlight = kept.startsWith(shown) ? kept.slice(shown.length).split(' ').filter(Boolean) : undefined;
  if (inFlight === undefined || inFlight.length > 1) {
    throw new Error(`the text kept at Stop is not the text on screen: ${JSON.stringify({ atClick, afterStop })}`);
  }
  return kept;
}
