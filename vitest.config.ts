import { configDefaults, defineConfig } from 'vitest/config';

// Every test lives in test/ (never under src/), in the folder that mirrors what it specifies
// (test/server/http/… for src/server/http/…); shared helpers live in test/support/. One project
// per kind of test, so each can be run alone (`vitest --project redis`) and each gets the
// environment it needs; the file's suffix says which: `.test-d.ts` types, `.test.tsx` react
// (happy-dom), `.redis.test.ts` redis (real redis-servers), `.postgres.test.ts` postgres (real
// PostgreSQL servers), `.workers.test.ts` workers (the real Workers runtime), `.e2e.test.ts` e2e
// (the examples in Chromium), any other `.test.ts` unit. All of them run under `npm test`.
export default defineConfig({
  // Tests, examples and benches import `answer-once/…` as users do; tsconfig maps it to src/.
  resolve: { tsconfigPaths: true },
  test: {
    // An `expect.poll` waits 4 s, not vitest's 1 s: on a loaded machine a stream takes longer
    // to reach the state polled for; 4 s still fails it inside a unit spec's 5 s.
    expect: { poll: { timeout: 4_000 } },
    projects: [
      {
        // Type tests (`expectTypeOf`): tsc checks them, nothing runs.
        extends: true,
        test: {
          name: 'types',
          include: [],
          typecheck: { enabled: true, only: true, include: ['test/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
        },
      },
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [
            ...configDefaults.exclude,
            'test/**/*.redis.test.ts',
            'test/**/*.workers.test.ts',
            'test/**/*.postgres.test.ts',
            'test/**/*.e2e.test.ts',
          ],
          environment: 'node',
        },
      },
      {
        extends: true,
        test: {
          name: 'react',
          include: ['test/**/*.test.tsx'],
          environment: 'happy-dom',
        },
      },
      {
        extends: true,
        test: {
          name: 'redis',
          include: ['test/**/*.redis.test.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
      {
        // The real Workers runtime (workerd, through miniflare): a worker bundled by esbuild.
        extends: true,
        test: {
          name: 'workers',
          include: ['test/**/*.workers.test.ts'],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: ['test/**/*.postgres.test.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/**/*.e2e.test.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 180_000,
          // An `expect.poll` of a page waits as long as a locator does (UI_TIMEOUT_MS), not
          // vitest's 1 s: a loaded machine's Chromium takes longer than that to paint.
          expect: { poll: { timeout: 20_000 } },
          fileParallelism: false,
        },
      },
    ],
  },
});
