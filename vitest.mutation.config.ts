import { configDefaults, defineConfig } from 'vitest/config';

// The tests Stryker runs against a core folder's mutants: that folder's own unit tests, plus the
// end-to-end ones of the turn for the orchestration. mutation/mutate.mjs sets MUTATE_FOLDER.
// A narrower set than `npm test` keeps a run within reach of a shared 2-core machine; the
// scores are what these tests catch, so a mutant killed only by another folder's tests counts
// as survived (a lower bound).
const testsOf: Record<string, readonly string[]> = {
  budget: ['test/budget/**/*.test.ts'],
  render: ['test/render/**/*.test.ts'],
  policy: ['test/policy/**/*.test.ts'],
  convert: ['test/convert/**/*.test.ts'],
  cache: ['test/cache/**/*.test.ts'],
  provider: ['test/provider/**/*.test.ts'],
};
// Tests that load better-sqlite3: its native module is built for the Node that installed it (20),
// and Stryker runs on Node 22 (see mutation/mutate.mjs), where it does not load. They run with
// `npm test`; a mutant only they would catch counts as survived.
const nativeTests = ['test/provider/kept-turn-row-stores.test.ts'];
const folder = process.env.MUTATE_FOLDER;
// MUTATE_TESTS (comma-separated globs) replaces the folder's set: mutate.mjs sets it for the files
// of stryker.config.mjs's `testsOfFile` (budget/'s tokenizer), or passes on the caller's own.
const tests = process.env.MUTATE_TESTS?.split(',')
  .map((glob) => glob.trim())
  .filter((glob) => glob !== '');

export default defineConfig({
  test: {
    // Instrumented code runs several times slower than plain: the budget folder's long-run
    // property test (4 s plain) takes over 30 s under Stryker.
    testTimeout: 120_000,
    hookTimeout: 60_000,
    // Tests that need PostgreSQL, Redis or Chromium read what this probe found (test/support/services.ts).
    globalSetup: ['test/support/probe-services.ts'],
    // Property tests at the sizes they name, as under `npm test`: at fast-check's small default a
    // mutant only a large input catches would count as survived.
    setupFiles: ['test/support/fast-check-sizes.ts'],
    include: [
      ...(tests !== undefined && tests.length > 0
        ? tests
        : folder === undefined
          ? Object.values(testsOf).flat()
          : (testsOf[folder] ?? [])),
    ],
    exclude: [...configDefaults.exclude, ...nativeTests],
  },
});
