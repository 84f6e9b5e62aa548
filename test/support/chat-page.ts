/**
 * What the chat demo's browser specs do on a page: ask, arm a fault, read the footer,
 * and what the server says its model wrote. Shared by test/examples/chat*.e2e.test.ts (and the
 * AI SDK demo's spec, for its trouble switch).
 */
import type { Page, Request as PwRequest } from 'playwright-core';
import { expect } from 'vitest';
import type { Trouble } from '../../examples/shared/trouble.js';
import type { DemoProcess, ExampleProcess } from './demo-process.js';

export const UI_TIMEOUT_MS = 20_000;

export type TroubleMode = 'lose' | 'cut' | '503' | 'slow';
/** The AI SDK demo's trouble switch (`examples/ai-sdk-chat/web/App.tsx`). */
type AiSdkTroubleMode = Exclude<Trouble, 'none'>;

/** A POST to the chat route, with the intent ID it carried. */
export interface ChatPost {
  readonly url: string;
  readonly requestId: string | undefined;
}

/** What one model call wrote (`GET /api/model-log`). */
export interface ModelCall {
  readonly call: number;
  readonly text: string;
  readonly done: boolean;
  readonly stopped: boolean;
}

/** Records every POST to a chat route `page` makes, from now on. */
export function trackChatPosts(page: Page): ChatPost[] {
  const posts: ChatPost[] = [];
  page.on('request', (request: PwRequest) => {
    if (request.method() === 'POST' && new URL(request.url()).pathname === '/api/chat') {
      posts.push({ url: request.url(), requestId: request.headers()['x-request-id'] });
    }
  });
  return posts;
}

export async function ask(page: Page, question: string, click: 'click' | 'dblclick' = 'click'): Promise<void> {
  await page.getByTestId('composer').fill(question);
  await page.getByTestId('send')[click]();
}

export async function armTrouble(page: Page, mode: TroubleMode | AiSdkTroubleMode): Promise<void> {
  const option = page.getByTestId(`trouble-${mode}`);
  await option.click();
  await expect.poll(() => option.getAttribute('aria-checked')).toBe('true');
}

/** Model calls as the footer shows them, once it agrees with the server. */
export async function footerModelCalls(page: Page, server: DemoProcess): Promise<number> {
  const { modelCalls } = await server.stats();
  await expect
    .poll(() => page.getByTestId('model-calls').textContent(), { timeout: UI_TIMEOUT_MS })
    .toBe(String(modelCalls));
  return modelCalls;
}

/** Model calls avoided as the footer shows them (`"N call(s), …"`), once it agrees with the server. */
export async function footerAvoidedCalls(page: Page, server: ExampleProcess<{ avoidedCalls: number }>): Promise<number> {
  const { avoidedCalls } = await server.stats();
  await expect
    .poll(async () => (await page.getByTestId('avoided').textContent())?.split(' ')[0], { timeout: UI_TIMEOUT_MS })
    .toBe(avoidedCalls.toLocaleString('en-US'));
  return avoidedCalls;
}

/** Every model call the server made (the latest 200), with the text it wrote. */
export async function modelLog(server: DemoProcess): Promise<ModelCall[]> {
  const response = await fetch(new URL('/api/model-log', server.url));
  return ((await response.json()) as { calls: ModelCall[] }).calls;
}

/** The one model call made since `before` calls; fails if there were more or none. */
export async function onlyCallSince(server: DemoProcess, before: number): Promise<ModelCall> {
  const calls = (await modelLog(server)).filter((call) => call.call > before);
  expect(calls.map((call) => call.call)).toEqual([before + 1]);
  return calls[0]!;
}

/** The text of an answered turn's bubble (without its badges and meta line). */
export async function answerText(page: Page, index = 0): Promise<string> {
  return (await page.getByTestId('answer').nth(index).locator('.text').textContent()) ?? '';
}

/** A file name for a spec's screenshot. */
export function screenshotName(name: string): string {
  return name
    .replace(/[^a-z0-9]+/gi, '-')
    .replace(/^-|-$/g, '')
    .toLowerCase();
}
