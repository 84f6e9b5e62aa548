// Mutation testing (`npm run mutate`; not in CI: a full run takes longer than CI's budget on
// 2 cores). A surviving mutant is a missing spec or dead code: kill it or list it, with why,
// in README § Development. Incremental: reports/stryker-incremental.json keeps every mutant's
// last result, so a run after a small change re-tests only what it touched. It is gitignored:
// megabytes of JSON rewritten by every run would bloat history and conflict between branches.
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutate.config.ts' },
  plugins: ['@stryker-mutator/vitest-runner'],
  mutate: [
    'src/core/**/*.ts',
    'src/client/**/*.ts',
    'src/server/**/*.ts',
    ...(process.env.MUTATE_REDIS === '1' ? ['src/redis/**/*.ts'] : []),
    // Entry files only re-export; types-only files have nothing to mutate.
    '!src/**/index.ts',
  ],
  coverageAnalysis: 'perTest',
  ignoreStatic: true,
  incremental: true,
  incrementalFile: 'reports/stryker-incremental.json',
  concurrency: 2,
  timeoutMS: 10_000,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  clearTextReporter: { allowColor: false, reportScoreTable: true, reportMutants: false, reportTests: false },
  thresholds: { high: 90, low: 80, break: null },
  tempDirName: '.tmp/stryker',
};
