// @ts-check
// Mutation testing (issue 17): `npm run mutate` (mutation/mutate.mjs) runs this config one core
// folder at a time, each with its own incremental file (mutation/incremental/<folder>.json,
// committed), so a rerun tests only mutants in code or tests that changed since.

/** The folders where a silent bug costs most, and the turn's orchestration. */
export const coreFolders = ['budget', 'render', 'policy', 'convert', 'cache', 'provider'];

// budget/'s tokenizer: every budget test counts tokens, so per-test coverage does not narrow its
// mutants to a few tests, and the 1 MB exactness tests take minutes per mutant instrumented. Its
// files are measured against the tests written for the tokenizer instead (a lower bound: a mutant
// only another budget test would kill counts as survived). One set for all of them, so any
// combination of these files (a local run, CI's rerun of the changed ones) meets the same tests
// its record was made with.
const tokenizerTests = [
  'test/budget/tiktoken-tokenizer.test.ts',
  'test/budget/encoding-for-model.test.ts',
  'test/budget/encode-ordinary.test.ts',
  'test/budget/vocabulary-of.test.ts',
  'test/budget/count-tokens-chunked.test.ts',
  'test/budget/decode-utf8-whole.test.ts',
  'test/budget/count-joined.test.ts',
  'test/budget/encode-within.test.ts',
  'test/budget/find-safe-boundary.test.ts',
  'test/budget/take-head.test.ts',
  'test/budget/take-tail.test.ts',
];

/**
 * Core files measured against a narrower test set than their folder's (vitest.mutation.config.ts):
 * mutation/mutate.mjs runs them apart from their folder's other files, with MUTATE_TESTS set to
 * these globs, whether locally or in CI.
 * @type {Readonly<Record<string, readonly string[]>>}
 */
export const testsOfFile = Object.fromEntries(
  [
    'tiktoken-tokenizer',
    'encoding-for-model',
    'encode-within',
    'encode-guarded',
    'byte-pair-encode',
    'encode-ordinary',
    'vocabulary-of',
    'pre-tokenize-pattern',
    'count-tokens-chunked',
    'find-safe-boundary',
    'decode-utf8-whole',
    'tokenizer',
  ].map((name) => [`src/budget/${name}.ts`, tokenizerTests]),
);

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
