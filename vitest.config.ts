import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Real MCP servers and a real tokenizer: the first tiktoken encoder costs ~1 s.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          // test/package: `npm run check:package`, its own step of .ci/run.
          exclude: [...configDefaults.exclude, 'test/cli/**', 'test/package/**'],
        },
      },
      // The CLI tests run the built binary: their project builds it once, and only when they run.
      {
        extends: true,
        test: {
          name: 'cli',
          include: ['test/cli/**/*.test.ts'],
          globalSetup: ['test/cli/support/build-cli.ts'],
        },
      },
    ],
  },
});
