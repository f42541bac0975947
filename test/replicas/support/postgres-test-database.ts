import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { onTestFinished } from 'vitest';
import { postgresUrl } from '../../support/probe-services.js';
import { requireServices } from '../../support/services.js';

// Tests use their own database on the machine's PostgreSQL (`.ci/run` starts one when none listens),
// and each test its own schema in it, dropped when the test finishes.
// A test that needs it skips, with the probe's line, when nothing listens there.
const adminUrl = postgresUrl;
const databaseName = 'mcp_resource_context_test';

export const testDatabaseUrl = (() => {
  const url = new URL(adminUrl);
  url.pathname = `/${databaseName}`;
  return url.toString();
})();

let created: Promise<void> | undefined;

/** Creates the test database once per process (another test file may be creating it too). */
export function ensureTestDatabase(): Promise<void> {
  requireServices('postgres');
  created ??= (async () => {
    const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5_000 });
    await client.connect();
    try {
      await client.query(`CREATE DATABASE ${databaseName}`);
    } catch (error) {
      // 42P04: exists; 23505: another process created it at the same moment.
      const code = (error as { code?: string }).code;
      if (code !== '42P04' && code !== '23505') throw error;
    } finally {
      await client.end();
    }
  })();
  return created;
}

/** A schema name no other test uses; dropped (with everything in it) when the test finishes. */
export async function freshSchema(): Promise<string> {
  await ensureTestDatabase();
  const schema = `t_${randomBytes(6).toString('hex')}`;
  onTestFinished(() => dropSchema(schema));
  return schema;
}

/** Runs SQL on the test database, as an operator would with psql. */
export async function sql(text: string, values: unknown[] = []): Promise<pg.QueryResult> {
  await ensureTestDatabase();
  const client = new pg.Client({ connectionString: testDatabaseUrl, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return await client.query(text, values);
  } finally {
    await client.end();
  }
}

export async function dropSchema(schema: string): Promise<void> {
  await sql(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
}
