/**
 * `answer-once check` against the Next.js example (`npm run demo:next`: its production
 * build, App Router route handlers over one `createIdempotencyHandler` with
 * `PostgresStore`), as a user would point it at their own deployment.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCheck } from '../../src/check/runner.js';
import { type AiSdkDemo, startNextDemoProcess } from '../support/demo-process.js';
import { requirePostgresServer } from '../support/postgres-server.js';

/** The production build takes minutes on a loaded two-core machine. */
const BUILD_TIMEOUT_MS = 600_000;

describe.runIf(requirePostgresServer())('answer-once check against the Next.js example', () => {
  let demo: AiSdkDemo | undefined;
  beforeAll(async () => {
    demo = await startNextDemoProcess({ tokenDelayMs: 30, startTimeoutMs: BUILD_TIMEOUT_MS });
  }, BUILD_TIMEOUT_MS);
  afterAll(() => demo?.stop());

  it('passes every case but the scope one, which needs a second identity (the demo has one visitor)', async () => {
    const before = await demo!.stats();
    const report = await runCheck({ url: new URL('/api/chat', demo!.url).href });

    expect(report.results.filter((result) => result.outcome === 'fail')).toEqual([]);
    expect(report.results.filter((result) => result.outcome === 'skip').map((result) => result.id)).toEqual(['other-scope']);
    // One model call per intent the cases sent: 10 without the scope case.
    expect((await demo!.stats()).modelCalls - before.modelCalls).toBe(10);
  });
});
