import { afterEach, describe, expect, it } from 'vitest';
import { runCheck } from '../../src/check/runner.js';
import { type CheckedServer, signedIn, startReferenceServer } from '../support/check-servers.js';
import { usePostgresSuite } from '../support/postgres-suite.js';

describe('answer-once check against the reference server over PostgresStore', () => {
  const suite = usePostgresSuite();
  let server: CheckedServer | undefined;
  afterEach(async () => {
    await server?.close();
  });

  it('passes every case, the model run once per intent', async () => {
    server = await startReferenceServer(suite.open());
    const report = await runCheck({ url: server.url, headers: signedIn('alice'), otherHeaders: signedIn('bob') });

    expect(report.results.filter((result) => result.outcome !== 'pass')).toEqual([]);
    expect(report.passed).toBe(13);
    expect(server.calls()).toBe(12); // the intents a run sends (the scope case: one per identity)
  });
});
