import { describe, it } from 'vitest';
import { expectCheckPasses } from '../support/check-servers.js';
import { usePostgresSuite } from '../support/postgres-suite.js';

describe('answer-once check against the reference server over PostgresStore', () => {
  const suite = usePostgresSuite();

  it('passes every case, the model run once per intent', async () => {
    await expectCheckPasses(suite.open());
  });
});
