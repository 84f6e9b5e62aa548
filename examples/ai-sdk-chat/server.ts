/**
 * `npm run demo:ai-sdk`: useChat + answer-once on one loopback port.
 *
 *   npm run demo:ai-sdk                      # http://127.0.0.1:5174/
 *   PORT=0 npm run demo:ai-sdk               # any free port
 *   npm run demo:ai-sdk -- --delay 150       # a slower mock model (ms per token; TOKEN_DELAY_MS too)
 */
import { parseArgs } from 'node:util';
import { startAiSdkDemo } from './demo.js';

const { values } = parseArgs({ options: { port: { type: 'string' }, host: { type: 'string' }, delay: { type: 'string' } } });

function whole(name: string, text: string | undefined): number | undefined {
  if (text === undefined || text === '') return undefined;
  const value = Number(text);
  if (Number.isInteger(value) && value >= 0) return value;
  console.error(`ai-sdk demo: ${name} must be a whole number ≥ 0, got "${text}"`);
  process.exit(2);
}

console.log('answer-once × AI SDK demo: building its page (Vite, 10–15 s the first time)…');
const demo = await startAiSdkDemo({
  port: whole('PORT', values.port ?? process.env.PORT),
  hostname: values.host ?? process.env.HOST,
  tokenDelayMs: whole('--delay / TOKEN_DELAY_MS', values.delay ?? process.env.TOKEN_DELAY_MS),
});
console.log(`answer-once × AI SDK demo → ${demo.url}  (runs until Ctrl+C)`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void demo.close().then(() => process.exit(0)));
}
