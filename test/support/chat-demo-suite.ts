/**
 * The fixture every browser suite shares: a demo server and Chromium for the suite, a
 * fresh context and page per spec (their own storage), the chat POSTs the spec made, and
 * a screenshot of the page after every spec. Shared by test/examples/*.e2e.test.ts.
 */
import { mkdir } from 'node:fs/promises';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { screenshotName } from './chat-page.js';
import { launchWithServer } from './chromium.js';
import type { ExampleProcess } from './demo-process.js';

const SCREENSHOTS = 'test-results/e2e';

interface ChatDemoSuiteOptions<TDemo, TPosts> {
  /** Starts the suite's demo server (once, with Chromium). */
  readonly start: () => Promise<TDemo>;
  /** Starts recording the chat POSTs of a spec's fresh context and page. */
  readonly trackPosts: (context: BrowserContext, page: Page) => TPosts;
  /** Opens the demo on the page before every spec. */
  readonly openDemo?: boolean;
  /** Put before every screenshot's name. */
  readonly screenshotPrefix?: string;
  /** How long the demo server may take to start (a production build first, for the Next.js example). */
  readonly startTimeoutMs?: number | undefined;
}

/** What a spec reads: set by the suite's hooks, so read it inside a spec, not at collection. */
export interface ChatDemoSuite<TDemo, TPosts> {
  readonly demo: TDemo;
  readonly context: BrowserContext;
  readonly page: Page;
  /** The chat POSTs of this spec, as `trackPosts` records them. */
  readonly chatPosts: TPosts;
}

/** Registers the suite's hooks in the enclosing `describe`; returns what its specs read. */
export function chatDemoSuite<TDemo extends ExampleProcess<unknown>, TPosts>({
  start,
  trackPosts,
  openDemo = false,
  screenshotPrefix = '',
  startTimeoutMs,
}: ChatDemoSuiteOptions<TDemo, TPosts>): ChatDemoSuite<TDemo, TPosts> {
  let demo: TDemo;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let chatPosts: TPosts;

  beforeAll(async () => {
    await mkdir(SCREENSHOTS, { recursive: true });
    [demo, browser] = await launchWithServer(start());
  }, startTimeoutMs);

  afterAll(async () => {
    await browser?.close();
    await demo?.stop();
  });

  beforeEach(async () => {
    context = await browser.newContext({ viewport: { width: 1000, height: 720 } });
    page = await context.newPage();
    chatPosts = trackPosts(context, page);
    if (openDemo) await page.goto(demo.url);
  });

  afterEach(async ({ task }) => {
    const path = `${SCREENSHOTS}/${screenshotPrefix}${screenshotName(task.name)}.png`;
    await page?.screenshot({ path }).catch(() => undefined);
    await context?.close();
  });

  return {
    get demo() {
      return demo;
    },
    get context() {
      return context;
    },
    get page() {
      return page;
    },
    get chatPosts() {
      return chatPosts;
    },
  };
}
