import { inject, TestRunner } from 'vitest';
import type { Service, Services } from './probe-services.js';

export type { Service } from './probe-services.js';

// What test/support/probe-services.ts found (once per run, before any test file).
const services: Services = inject('services');

/**
 * The line naming the first of `needed` this machine lacks, or undefined when it has them all:
 * for `describe.skipIf(missing('chromium'))` and `it.skipIf(...)`. The line itself was printed
 * once by the probe.
 */
export function missing(...needed: Service[]): string | undefined {
  return needed.map((service) => services.missing[service]).find((line) => line !== undefined);
}

/**
 * Inside a test (or a helper it calls): skips the running test when the machine lacks one of
 * `needed`. Support code calls it where it first needs the service (a fresh schema, a key
 * prefix, a throwaway server), so a test file needs no guard of its own.
 */
export function requireServices(...needed: Service[]): void {
  const line = missing(...needed);
  if (line === undefined) return;
  const test = TestRunner.getCurrentTest();
  if (test === undefined) {
    throw new Error(`${line}; outside a test, guard with describe.skipIf(missing(...)) instead`);
  }
  test.context.skip(line);
}

/** The folder holding initdb and pg_ctl (requires 'postgres-binaries'). */
export function postgresBin(): string {
  requireServices('postgres-binaries');
  return services.postgresBin as string;
}

export const chromiumPath = services.chromiumPath;

/** The Python that runs clients/python's tests (requires 'python-client'). */
export const pythonPath = services.python;
