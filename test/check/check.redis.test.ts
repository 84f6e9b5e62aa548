import { describe, it } from 'vitest';
import { expectCheckPasses } from '../support/check-servers.js';
import { useRedisSuite } from '../support/redis-suite.js';

describe('answer-once check against the reference server over RedisStore', () => {
  const suite = useRedisSuite();

  it('passes every case, the model run once per intent', async () => {
    await expectCheckPasses(await suite.open());
  });
});
