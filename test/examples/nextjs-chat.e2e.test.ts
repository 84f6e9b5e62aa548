/**
 * The Next.js example (`npm run demo:next`) on its production build — `next build` once
 * per run, then `next start` over a PostgreSQL the demo starts itself — in Chromium: the
 * same page and the same promises as the AI SDK demo, its chat and status routes being
 * App Router route handlers over one `createIdempotencyHandler` with `PostgresStore` and
 * `waitUntil: after` — its booking agent's step journal in PostgreSQL.
 */
import { startNextDemoProcess } from '../support/demo-process.js';
import { requirePostgresServer } from '../support/postgres-server.js';
import { describeUseChatDemo, TOKEN_DELAY_MS } from '../support/use-chat-suite.js';

/** The production build takes minutes on a loaded two-core machine. */
const BUILD_TIMEOUT_MS = 600_000;

describeUseChatDemo('Next.js example (App Router, production build) in Chromium', {
  start: () => startNextDemoProcess({ tokenDelayMs: TOKEN_DELAY_MS, startTimeoutMs: BUILD_TIMEOUT_MS }),
  screenshotPrefix: 'nextjs-',
  startTimeoutMs: BUILD_TIMEOUT_MS,
  needs: requirePostgresServer, // under CI=true a missing PostgreSQL fails the suite
});
