// @ts-check
// Mutation testing (issue 17): `npm run mutate` (mutation/mutate.mjs) runs this config one core
// folder at a time, each with its own incremental file (mutation/incremental/<folder>.json,
// committed), so a rerun tests only mutants in code or tests that changed since.

/** The folders where a silent bug costs most, and the turn's orchestration. */
export const coreFolders = ['budget', 'render', 'policy', 'convert', 'cache', 'provider'];

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
const config = {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts', related: true },
  // The type checker drops mutants that do not compile before any test runs. It costs a
  // TypeScript program per worker; MUTATE_CHECK=off skips it (faster, slightly lower scores).
  checkers: process.env.MUTATE_CHECK === 'off' ? [] : ['typescript'],
  tsconfigFile: 'tsconfig.json',
  typescriptChecker: { prioritizePerformanceOverAccuracy: true },
  mutate: coreFolders.map((folder) => `src/${folder}/**/*.ts`),
  coverageAnalysis: 'perTest',
  incremental: true,
  // The machine is shared: two workers at most.
  concurrency: Number(process.env.MUTATE_CONCURRENCY ?? 2),
  // A mutant that hangs a test costs this much (plus twice the test's own time) before it counts
  // as timed out; MUTATE_TIMEOUT_MS lowers it for folders whose tests are quick but many mutants
  // hang them (cache/, provider/: a refresh or a read that never settles).
  timeoutMS: Number(process.env.MUTATE_TIMEOUT_MS ?? 20_000),
  timeoutFactor: 2,
  ignoreStatic: true,
  reporters: ['clear-text', 'progress'],
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};

export default config;
