import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { authConfigSchema } from '../../src/credentials/auth-config.js';

const doc = readFileSync(new URL('../../docs/servers-and-oauth.md', import.meta.url), 'utf8');

/** Each `auth.type` of the schema with its fields (the `type` discriminator left out). */
function schemaFields(): Map<string, string[]> {
  const fields = new Map<string, string[]>();
  for (const option of authConfigSchema.options) {
    const shape = (option as unknown as z.ZodObject).shape;
    const type = (shape.type as z.ZodLiteral<string>).value;
    fields.set(
      type,
      Object.keys(shape).filter((key) => key !== 'type'),
    );
  }
  return fields;
}

/** The rows of the doc's one `auth` table, by the type in their first cell. */
function tableRows(): Map<string, string> {
  const rows = new Map<string, string>();
  for (const line of doc.split('\n')) {
    const type = /^\| `([a-z-]+)` +\|/i.exec(line)?.[1];
    if (type !== undefined && !rows.has(type)) rows.set(type, line);
  }
  return rows;
}

describe("docs/servers-and-oauth.md's auth table", () => {
  it('is the only table of auth types, with a row per type of the schema naming every field', () => {
    expect(doc.match(/^\| `auth\.type` /gm)).toHaveLength(1);
    const rows = tableRows();
    const fields = schemaFields();
    expect([...rows.keys()].sort()).toEqual([...fields.keys()].sort());
    for (const [type, keys] of fields) {
      const row = rows.get(type) ?? '';
      expect(
        keys.filter((key) => !row.includes(`\`${key}\``)),
        type,
      ).toEqual([]);
    }
  });
});
