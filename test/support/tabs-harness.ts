/**
 * A page that drives answer-once in real Chromium through its own API
 * (./tabs-harness-page.ts, bundled by esbuild once), served on the chat demo's origin by
 * the browser context's routes: the demo's real server answers its requests, and it
 * shares the origin's storage, Web Locks and BroadcastChannel with the demo's tabs.
 */
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { BrowserContext, Page } from 'playwright-core';
import type { Harness } from './tabs-harness-page.js';

const ENTRY = fileURLToPath(new URL('./tabs-harness-page.ts', import.meta.url));
const TSCONFIG = fileURLToPath(new URL('../../tsconfig.json', import.meta.url));
const PATH = '/tabs-harness';

let bundle: Promise<string> | undefined;

/** The page's script: the library and the harness, bundled for the browser (built once). */
function script(): Promise<string> {
  bundle ??= build({
    entryPoints: [ENTRY],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    tsconfig: TSCONFIG,
    logLevel: 'warning',
  }).then(({ outputFiles }) => outputFiles[0]!.text);
  return bundle;
}

/** Serves the harness at `<demo>/tabs-harness` in `context`. */
export async function serveHarness(context: BrowserContext, demoUrl: string): Promise<void> {
  const code = await script();
  await context.route(new URL(`${PATH}.js`, demoUrl).href, (route) =>
    route.fulfill({ body: code, contentType: 'text/javascript; charset=utf-8' }),
  );
  await context.route(new URL(`${PATH}?*`, demoUrl).href, (route) =>
    route.fulfill({
      body: `<!doctype html><meta charset="utf-8"><title>tabs harness</title><script type="module" src="${PATH}.js"></script>`,
      contentType: 'text/html; charset=utf-8',
    }),
  );
}

/** Opens the harness on `page` (`idle`: the client's `idleTimeout`, ms) and waits for its script. */
export async function openHarness(page: Page, demoUrl: string, idle = 0): Promise<void> {
  await page.goto(new URL(`${PATH}?idle=${idle}`, demoUrl).href);
  await page.waitForFunction(() => 'harness' in globalThis);
}

/** Calls the harness of `page`. */
export const harness = <K extends keyof Harness>(
  page: Page,
  method: K,
  ...args: Parameters<Harness[K]>
): Promise<Awaited<ReturnType<Harness[K]>>> =>
  page.evaluate(
    ([name, rest]) => {
      const target = (globalThis as unknown as { harness: Record<string, (...a: unknown[]) => unknown> }).harness;
      return target[name]!(...rest);
    },
    [method, args] as const,
  ) as Promise<Awaited<ReturnType<Harness[K]>>>;
