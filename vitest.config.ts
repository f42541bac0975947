import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';
import { testProjects } from './test/projects.js';

// Three projects, each file placed by what it imports (test/projects.ts): `unit` (pure code),
// `integration` (in-process MCP servers, loopback sockets, SQLite files) and `e2e` (child
// processes, PostgreSQL, Redis, Chromium, the CLI). `vitest run --project unit` is the fast loop.
const probe = 'test/support/probe-services.ts';
const projects = testProjects(fileURLToPath(new URL('.', import.meta.url)));

export default defineConfig({
  test: {
    // Real MCP servers and a real tokenizer: the first tiktoken encoder costs ~1 s.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // One file per core (vitest's default is one fewer: a single file at a time on the 2-core
    // machines this runs on): most files wait on servers and child processes, not the CPU, and
    // each file's own import and transform was the run's largest serial cost.
    maxWorkers: availableParallelism(),
    setupFiles: ['test/support/fast-check-sizes.ts'],
    // Every project probes PostgreSQL, Redis, Chromium, openssl and the PostgreSQL/Redis binaries
    // (once per run) and prints one line per missing one; tests that need it skip (under CI=true
    // the run fails instead).
    projects: [
      { extends: true, test: { name: 'unit', include: projects.unit, globalSetup: [probe] } },
      { extends: true, test: { name: 'integration', include: projects.integration, globalSetup: [probe] } },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: projects.e2e,
          // test/package: `npm run check:package`, its own step of .ci/run.
          exclude: [...configDefaults.exclude, 'test/package/**'],
          // Built once per run, and only when e2e runs: the CLI tests about the process run the
          // built binary (the others run commands in process), and the fault fixture's stdio
          // children start from the build on plain node.
          globalSetup: [probe, 'test/cli/support/build-cli.ts'],
        },
      },
    ],
  },
});
