import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { projectOf, testProjects } from './projects.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

describe('test projects, by what a file imports', () => {
  it('places pure code in unit, in-process servers in integration, databases and processes in e2e', () => {
    expect(projectOf(root, 'test/budget/take-head.test.ts')).toBe('unit');
    expect(projectOf(root, 'test/fetch/fetch-attachment.test.ts')).toBe('integration');
    expect(projectOf(root, 'test/replicas/redis-shared-tier.test.ts')).toBe('e2e');
    expect(projectOf(root, 'test/browser/inspector-page.test.ts')).toBe('e2e');
  });

  it('places a file by what it does, not by its folder: pure CLI helpers are unit, stdio children e2e', () => {
    expect(projectOf(root, 'test/cli/format-table.test.ts')).toBe('unit');
    expect(projectOf(root, 'test/replicas/replica-config.test.ts')).toBe('unit');
    expect(projectOf(root, 'test/cli/pin-commands.test.ts')).toBe('e2e');
    // Child processes started through a server config (node itself, a fixture over stdio).
    expect(projectOf(root, 'test/mcp/close-promptly.test.ts')).toBe('e2e');
    expect(projectOf(root, 'test/credentials/secret-redaction.test.ts')).toBe('e2e');
    // Its sample sources (in double-quoted strings) and projects.ts's signs are not its imports.
    expect(projectOf(root, 'test/projects.test.ts')).toBe('unit');
  });

  it('puts every test file in exactly one project', () => {
    const projects = testProjects(root);
    const all = [...projects.unit, ...projects.integration, ...projects.e2e];
    expect(new Set(all).size).toBe(all.length);
    expect(all).toContain('test/projects.test.ts');
    expect(projects.unit.length).toBeGreaterThan(50);
  });

  const scratch = mkdtempSync(join(tmpdir(), 'mcp-context-projects-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));
  const write = (file: string, text: string) => {
    mkdirSync(dirname(join(scratch, file)), { recursive: true });
    writeFileSync(join(scratch, file), text);
  };

  it('follows imports through test support files: a helper that opens PostgreSQL makes its users e2e', () => {
    write('test/support/db.ts', "import pg from 'pg';\nexport const db = pg;\n");
    write('test/support/server.ts', "import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';\n");
    write('test/a/uses-db.test.ts', "import { db } from '../support/db.js';\n");
    write('test/a/uses-server.test.ts', "import { x } from '../support/server.js';\n");
    write('test/a/pure.test.ts', "import { x } from '../../src/budget/take-head.js';\n");
    write('test/a/spawns-node.test.ts', "const config = { command: process.execPath, args: ['x.js'] };\n");
    write('test/cli/pure-helper.test.ts', "import { x } from '../../src/cli/format-table.js';\n");
    expect(testProjects(scratch)).toEqual({
      unit: ['test/a/pure.test.ts', 'test/cli/pure-helper.test.ts'],
      integration: ['test/a/uses-server.test.ts'],
      e2e: ['test/a/spawns-node.test.ts', 'test/a/uses-db.test.ts'],
    });
  });
});
