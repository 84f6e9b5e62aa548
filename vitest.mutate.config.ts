import { configDefaults, defineConfig } from 'vitest/config';
import base from './vitest.config.js';

// The suites Stryker runs against each mutant (`npm run mutate`): the ones that need no
// outside service; MUTATE=…,redis adds the Redis suites (they start real redis-servers).
const wanted = new Set(['unit', 'react', ...((process.env.MUTATE ?? '').includes('redis') ? ['redis'] : [])]);

// Each mutant re-runs every spec that covers it. These three are whole-system properties
// (thousands of intents, child processes) that take seconds each and cover nearly every
// mutant; the specs that state each behaviour are what should kill a mutant.
const SLOW = ['test/server/chaos.test.ts', 'test/client/loss.test.ts', 'test/examples/queue.test.ts'];

// Redis suites whose servers all run in child processes (test/support/server-instances.ts):
// Stryker switches a mutant on in the test process only, so no mutant runs there and these
// can kill none; they would only add their ~70 s to every initial run.
const CHILD_PROCESSES = [
  'test/redis/multi-instance.redis.test.ts',
  'test/redis/stream-instances.redis.test.ts',
  'test/redis/stream-chaos.redis.test.ts',
];

type Project = { test?: { name?: string; exclude?: string[] } };
const projects = ((base.test?.projects ?? []) as Project[])
  .filter((project) => wanted.has(project.test?.name ?? ''))
  .map((project) => ({
    ...project,
    test: { ...project.test, exclude: [...(project.test?.exclude ?? configDefaults.exclude), ...SLOW, ...CHILD_PROCESSES] },
  }));

export default defineConfig({ ...base, test: { ...base.test, projects: projects as never } });
