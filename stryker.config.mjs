// Mutation testing (`npm run mutate`; not in CI: a full run takes longer than CI's budget on
// 2 cores). A surviving mutant is a missing spec or dead code: kill it or list it, with why,
// in MUTATION.md. `MUTATE=client npm run mutate` runs one folder (or a list:
// `MUTATE=core,server`; `redis` adds the Redis suites, which start real redis-servers).
// Incremental: reports/stryker-<folders>.json keeps every mutant's last result, so a run after
// a small change re-tests only what it touched. Gitignored: megabytes of JSON rewritten by
// every run would bloat history and conflict between branches.
const folders = (process.env.MUTATE ?? 'core,client,server').split(',').map((folder) => folder.trim());

export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutate.config.ts' },
  plugins: ['@stryker-mutator/vitest-runner'],
  mutate: [
    ...folders.map((folder) => `src/${folder}/**/*.ts`),
    // Entry files only re-export.
    '!src/**/index.ts',
  ],
  coverageAnalysis: 'perTest',
  ignoreStatic: true,
  incremental: true,
  incrementalFile: `reports/stryker-${folders.join('-')}.json`,
  concurrency: 2,
  timeoutMS: 10_000,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: `reports/mutation/${folders.join('-')}.html` },
  jsonReporter: { fileName: `reports/mutation/${folders.join('-')}.json` },
  clearTextReporter: { allowColor: false, reportScoreTable: true, reportMutants: false, reportTests: false },
  thresholds: { high: 90, low: 80, break: null },
  tempDirName: '.tmp/stryker',
};
