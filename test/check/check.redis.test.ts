import { afterEach, describe, expect, it } from 'vitest';
import { runCheck } from '../../src/check/runner.js';
import { type CheckedServer, signedIn, startReferenceServer } from '../support/check-servers.js';
import { useRedisSuite } from '../support/redis-suite.js';

describe('answer-once check against the reference server over RedisStore', () => {
  const suite = useRedisSuite();
  let server: CheckedServer | undefined;
  afterEach(async () => {
    await server?.close();
  });

  it('passes every case, the model run once per intent', async () => {
    server = await startReferenceServer(await suite.open());
    const report = await runCheck({ url: server.url, headers: signedIn('alice'), otherHeaders: signedIn('bob') });

    expect(report.results.filter((result) => result.outcome !== 'pass')).toEqual([]);
    expect(report.passed).toBe(13);
    expect(server.calls()).toBe(12); // the intents a run sends (the scope case: one per identity)
  });
});
