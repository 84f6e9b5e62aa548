import { defineConfig } from 'vitest/config';

// Every test lives in test/ (never under src/). One project per kind of test, so each can be run alone (`vitest --project redis`)
// and each gets the environment it needs. All of them run under `npm test`.
export default defineConfig({
  // Tests, examples and benches import `answer-once/…` as users do; tsconfig maps it to src/.
  resolve: { tsconfigPaths: true },
  test: {
    projects: [
      {
        // Type tests (`expectTypeOf`): tsc checks them, nothing runs.
        extends: true,
        test: {
          name: 'types',
          include: [],
          typecheck: { enabled: true, only: true, include: ['test/types/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
        },
      },
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/node/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        extends: true,
        test: {
          name: 'react',
          include: ['test/react/**/*.test.tsx'],
          environment: 'happy-dom',
        },
      },
      {
        extends: true,
        test: {
          name: 'redis',
          include: ['test/redis/**/*.test.ts'],
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
          include: ['test/workers/**/*.test.ts'],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
