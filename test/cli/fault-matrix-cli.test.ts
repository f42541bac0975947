import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ReadFaultInput, startFaultFixture } from '../../fixtures/index.js';
import { type CliResult, runCliInProcess } from './support/run-cli-in-process.js';

/**
 * The fault matrix's CLI group (the rest is test/faults/fault-matrix.test.ts): `mcp-context`
 * (in process: exit code and output as the built CLI's) against a fault server over Streamable
 * HTTP on 127.0.0.1.
 */
interface CliCase {
  readonly name: string;
  readonly fault?: ReadFaultInput;
  /** Headers for the faulty server's entry in mcp-context.json. */
  readonly headers?: Record<string, string>;
  /** Replaces mcp-context.json with this text. */
  readonly configText?: string;
  readonly args: readonly string[];
  readonly check: (result: CliResult) => void;
}

const x = 'fault://x';

const cliCases: CliCase[] = [
  {
    name: 'read of a wrong-typed result: exit 1, INVALID_RESULT on one line, no schema dump',
    fault: { kind: 'wrong-type' },
    args: ['read', 'faulty', x],
    check: (result) => {
      expect(result.code).toBe(1);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toContain('INVALID_RESULT');
      expect(result.stderr).not.toContain('invalid_type');
    },
  },
  {
    name: 'read of an HTML 500: exit 1, HTTP_ERROR, none of the page',
    fault: { kind: 'http-status', status: 500 },
    args: ['read', 'faulty', x],
    check: (result) => {
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('HTTP_ERROR');
      expect(result.stderr).not.toContain('<html>');
    },
  },
  {
    name: 'read of a server echoing its headers: the credentials are [redacted] on stdout',
    fault: { kind: 'echo' },
    headers: { 'X-Any': 'zq-cli-secret-9', 'X-Pin': 'q7' },
    args: ['read', 'faulty', x],
    check: (result) => {
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('[redacted]');
      expect(result.stdout).not.toContain('zq-cli-secret-9');
      expect(result.stdout).not.toMatch(/x-pin[^,]*q7/);
    },
  },
  {
    name: 'read of text with terminal escapes: none reach the terminal',
    fault: { kind: 'text', text: 'red \u001b[31m alert \u0007 \u009b2J' },
    args: ['read', 'faulty', x],
    check: (result) => {
      expect(result.code).toBe(0);
      // biome-ignore lint/suspicious/noControlCharactersInRegex: asserting none reach the terminal
      expect(result.stdout).not.toMatch(/[\u0007\u001b\u009b]/);
    },
  },
  {
    name: 'a config nested 10,000 deep: exit 2 naming the problem',
    configText: `${'['.repeat(10_000)}${']'.repeat(10_000)}`,
    args: ['servers'],
    check: (result) => {
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('nested deeper than 64 levels');
    },
  },
];

describe('fault matrix: CLI', () => {
  for (const cliCase of cliCases) {
    it(`cli: ${cliCase.name}`, async () => {
      const fixture = await startFaultFixture('http', {
        resources: cliCase.fault ? { [x]: cliCase.fault } : {},
      });
      const directory = mkdtempSync(join(tmpdir(), 'mcp-context-faults-cli-'));
      try {
        const config = {
          mcpServers: {
            faulty: { type: 'http', url: fixture.url, ...(cliCase.headers && { headers: cliCase.headers }) },
          },
          bindings: {},
        };
        writeFileSync(join(directory, 'mcp-context.json'), cliCase.configText ?? JSON.stringify(config));
        cliCase.check(await runCliInProcess(cliCase.args, directory));
      } finally {
        await fixture.close();
        rmSync(directory, { recursive: true, force: true });
      }
    });
  }
});
