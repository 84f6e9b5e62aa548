/**
 * `npm run size:app` (in CI, after `npm run build`): what answer-once adds to a real app.
 * Builds two Vite + React apps on `useChat` for production — one on the AI SDK's
 * `DefaultChatTransport`, one on `answerOnceTransport` over `createClient` — against the
 * built package (dist/, ky and ulid included, as an app ships them), prints each app's
 * JavaScript gzipped (level 9) and the difference, and exits 1 when the difference is over
 * the limit.
 */
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type Rollup } from 'vite';

/**
 * The most answer-once may add to a `useChat` app, in gzipped kB: a ratchet, today's 25.11
 * kB plus 0.10 kB headroom; lower it as the client is trimmed, toward {@link GOAL_KB}.
 */
const LIMIT_KB = 25.21;
/** What answer-once means to add to a `useChat` app, ky and ulid included. */
const GOAL_KB = 15;

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/** The gzipped bytes of every JavaScript chunk `app`'s production build writes. */
async function appBytes(app: string): Promise<number> {
  const output = (await build({
    root: here(`./${app}/`),
    logLevel: 'silent',
    configFile: false,
    resolve: {
      alias: [
        { find: /^answer-once$/, replacement: here('../../dist/index.js') },
        { find: /^answer-once\/ai$/, replacement: here('../../dist/ai.js') },
      ],
    },
    build: { write: false, modulePreload: false },
  })) as Rollup.RollupOutput | Rollup.RollupOutput[];
  const outputs = Array.isArray(output) ? output : [output];
  let bytes = 0;
  for (const file of outputs.flatMap((out) => out.output)) {
    if (file.type === 'chunk') bytes += gzipSync(file.code, { level: 9 }).length;
  }
  return bytes;
}

const kB = (bytes: number) => (bytes / 1000).toFixed(2);
const base = await appBytes('default');
const withAnswerOnce = await appBytes('answer-once');
const delta = withAnswerOnce - base;
console.log(`useChat + DefaultChatTransport         ${kB(base).padStart(7)} kB gzip`);
console.log(`useChat + answerOnceTransport          ${kB(withAnswerOnce).padStart(7)} kB gzip`);
console.log(
  `answer-once adds                       ${kB(delta).padStart(7)} kB gzip (limit ${LIMIT_KB} kB, goal ${GOAL_KB} kB)`,
);
if (delta > LIMIT_KB * 1000) {
  console.error(`answer-once adds ${kB(delta)} kB to a useChat app: over the ${LIMIT_KB} kB limit.`);
  process.exitCode = 1;
}
