import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Real MCP servers and a real tokenizer: the first tiktoken encoder costs ~1 s.
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
