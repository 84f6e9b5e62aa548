import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

// The suites Stryker runs against each mutant (`npm run mutate`): the ones that need no
// outside service. MUTATE_REDIS=1 adds the Redis suites (they start real redis-servers).
// Each mutant re-runs the specs that cover it: the chaos suite's 10,000 intents would make
// every client and server mutant cost seconds. 300 intents keep its shape.
process.env.CHAOS_INTENTS ??= '300';
const wanted = new Set(['unit', 'react', ...(process.env.MUTATE_REDIS === '1' ? ['redis'] : [])]);
const projects = (base.test?.projects ?? []) as { test?: { name?: string } }[];

export default defineConfig({
  ...base,
  test: { ...base.test, projects: projects.filter((project) => wanted.has(project.test?.name ?? '')) as never },
});
