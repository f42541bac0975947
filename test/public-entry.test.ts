import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as api from '../src/index.js';

const sourceRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../src');
// Static imports only: `await import(...)` is how Node-only transports are loaded on demand.
const staticImport = /^\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]/gm;

/** Every module the root entry loads eagerly, following relative static imports. */
function staticGraph(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const source = readFileSync(file, 'utf8');
    for (const [, specifier = ''] of source.matchAll(staticImport)) {
      if (specifier.startsWith('.')) visit(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
      else packages.add(specifier);
    }
  };
  visit(entry);
  return { files, packages };
}

describe('the root entry', () => {
  it('pulls in no CLI, SQLite, stdio transport or child_process', () => {
    const { files, packages } = staticGraph(resolve(sourceRoot, 'index.ts'));
    expect([...files].filter((file) => file.includes('/cli/') || file.includes('/integrations/'))).toEqual(
      [],
    );
    const forbidden = [...packages].filter((name) =>
      /child_process|better-sqlite3|^pg$|^ioredis$|client\/stdio|server\/stdio|cross-spawn|^ai$|^ai\/|^@ai-sdk\/|^@opentelemetry\//.test(
        name,
      ),
    );
    expect(forbidden).toEqual([]);
    expect(files.size).toBeGreaterThan(10);
  });

  it('exports the API the design names', () => {
    expect(Object.keys(api).sort()).toEqual(
      expect.arrayContaining([
        'AccessPolicy',
        'ContextError',
        'McpServerRegistry',
        'MemoryAttachmentStore',
        'ResourceContextProvider',
        'createTiktokenTokenizer',
        'createConverterRegistry',
        'ConverterRegistry',
        'encodingForModel',
        'toAnthropicContent',
        'toOpenAIMessages',
        'renderText',
        'parsePromptArguments',
        'smallestUsefulCut',
      ]),
    );
  });
});
