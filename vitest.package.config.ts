import { defineConfig } from 'vitest/config';

// The packed package installed into an empty project (`npm run check:package`): slow by nature
// (build, pack, install), so it runs as its own step of .ci/run rather than in `npm test`.
export default defineConfig({
  test: {
    include: ['test/package/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
