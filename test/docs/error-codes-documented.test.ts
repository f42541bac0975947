import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url);

/** Every code of the `ContextErrorCode` union, read from src/errors.ts as written. */
function errorCodes(): string[] {
  const source = readFileSync(new URL('src/errors.ts', root), 'utf8');
  const union = /export type ContextErrorCode =([\s\S]*?);/.exec(source)?.[1] ?? '';
  return [...union.matchAll(/\|\s*'([A-Z_]+)'/g)].map((match) => match[1] ?? '');
}

/** The codes the first column of docs/errors.md's table names (a row may name several). */
function documentedCodes(): Set<string> {
  const doc = readFileSync(new URL('docs/errors.md', root), 'utf8');
  const codes = new Set<string>();
  for (const line of doc.split('\n')) {
    const firstCell = /^\|([^|]*)\|/.exec(line)?.[1] ?? '';
    for (const match of firstCell.matchAll(/`([A-Z_]+)`/g)) codes.add(match[1] ?? '');
  }
  return codes;
}

describe('docs/errors.md', () => {
  it('its table has a row for every code in src/errors.ts, and names no code that is not one', () => {
    const codes = errorCodes();
    expect(codes.length).toBeGreaterThan(40);
    const documented = documentedCodes();
    expect(codes.filter((code) => !documented.has(code))).toEqual([]);
    expect([...documented].filter((code) => !codes.includes(code))).toEqual([]);
  });
});
