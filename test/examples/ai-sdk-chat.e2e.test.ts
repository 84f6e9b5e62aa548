/**
 * The AI SDK demo (`npm run demo:ai-sdk`: `useChat` + `answerOnceTransport`, a server on
 * `streamText` over a mock model) in Chromium: a cut stream, a model that breaks
 * mid-answer, a reload mid-stream, Stop then reload, two tabs; the booking agent, which
 * asks first, through Approve / Deny, crashes, double-clicks, two tabs and a reload; the
 * newest message kept in view.
 */
import { startAiSdkDemoProcess } from '../support/demo-process.js';
import { describeUseChatDemo, TOKEN_DELAY_MS } from '../support/use-chat-suite.js';

describeUseChatDemo('ai-sdk demo (useChat + answerOnceTransport) in Chromium', {
  start: () => startAiSdkDemoProcess({ tokenDelayMs: TOKEN_DELAY_MS }),
  screenshotPrefix: 'ai-sdk-',
});
