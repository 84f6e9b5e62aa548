/**
 * `npm run demo`: the answer-once chat demo on one loopback port.
 *
 *   npm run demo                           # http://127.0.0.1:5173/
 *   PORT=8080 npm run demo                 # another port (0 = any free one)
 *   npm run demo -- --delay 4000           # a slower fake model (MODEL_DELAY_MS too)
 *   REDIS_URL=redis://127.0.0.1:6379 npm run demo   # intents in Redis
 */
import { parseArgs } from 'node:util';
import { startDemo } from './demo.js';

const { values } = parseArgs({
  options: {
    port: { type: 'string' },
    host: { type: 'string' },
    delay: { type: 'string' },
  },
});

function integer(name: string, text: string | undefined): number | undefined {
  if (text === undefined || text === '') return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0) {
    console.error(`chat demo: ${name} must be a whole number ≥ 0, got "${text}"`);
    process.exit(2);
  }
  return value;
}

console.log('answer-once chat demo: building its page (Vite, 10–15 s the first time)…');
const demo = await startDemo({
  port: integer('PORT', values.port ?? process.env.PORT),
  hostname: values.host ?? process.env.HOST,
  modelDelayMs: integer('--delay / MODEL_DELAY_MS', values.delay ?? process.env.MODEL_DELAY_MS),
  redisUrl: process.env.REDIS_URL || undefined,
});

console.log(`answer-once chat demo (store: ${demo.storeLabel}) → ${demo.url}  (runs until Ctrl+C)`);

let closing = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    if (closing) return;
    closing = true;
    demo.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  });
}
