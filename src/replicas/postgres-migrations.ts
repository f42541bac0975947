import type { PoolClient } from 'pg';
import { ContextError } from '../errors.js';

/** What the version table says about who owns the schema: never another application's. */
export const storeApplication = 'mcp-resource-context';

/** Schema changes in order; the version table records how many have run. Never edit one that shipped. */
export const postgresMigrations: readonly ((schema: string) => string)[] = [
  // 1: pins, one row each (the columns of the SQLite store, see sqlite-migrations.ts). `seq`
  // keeps insertion order across processes; a replaced pin takes a new one.
  (schema) => `
    CREATE TABLE ${schema}.mcp_context_pins (
      seq BIGSERIAL PRIMARY KEY,
      id TEXT NOT NULL UNIQUE,
      scope_kind TEXT NOT NULL CHECK (scope_kind IN ('pipeline', 'conversation')),
      scope_id TEXT NOT NULL,
      server TEXT NOT NULL,
      target_uri TEXT NOT NULL,
      uri TEXT,
      template TEXT,
      arguments_json TEXT,
      priority INTEGER,
      max_tokens INTEGER,
      added_at TEXT NOT NULL,
      CHECK ((uri IS NULL) <> (template IS NULL))
    );
    CREATE UNIQUE INDEX mcp_context_pins_target ON ${schema}.mcp_context_pins (scope_kind, scope_id, server, target_uri);
    CREATE INDEX mcp_context_pins_scope ON ${schema}.mcp_context_pins (scope_kind, scope_id, seq);
  `,
  // 2: the pin options of issue 15 (as SQLite's migration 2).
  (schema) => `
    ALTER TABLE ${schema}.mcp_context_pins ADD COLUMN ignore_audience INTEGER, ADD COLUMN skill INTEGER;
  `,
  // 3: a version per scope, raised by a trigger on every write to its pins (by any replica, of
  // any library version): a list whose scope kept the version it last read answers no rows.
  (schema) => `
    CREATE TABLE ${schema}.mcp_context_scope_versions (
      scope_kind TEXT NOT NULL,
      scope_id TEXT NOT NULL,
      version BIGINT NOT NULL,
      PRIMARY KEY (scope_kind, scope_id)
    );
    INSERT INTO ${schema}.mcp_context_scope_versions (scope_kind, scope_id, version)
      SELECT DISTINCT scope_kind, scope_id, 1 FROM ${schema}.mcp_context_pins;
    CREATE FUNCTION ${schema}.mcp_context_raise_scope_version() RETURNS trigger LANGUAGE plpgsql AS $raise$
    BEGIN
      IF TG_OP <> 'INSERT' THEN
        INSERT INTO ${schema}.mcp_context_scope_versions AS current (scope_kind, scope_id, version)
          VALUES (OLD.scope_kind, OLD.scope_id, 1)
          ON CONFLICT (scope_kind, scope_id) DO UPDATE SET version = current.version + 1;
      END IF;
      IF TG_OP <> 'DELETE' THEN
        INSERT INTO ${schema}.mcp_context_scope_versions AS current (scope_kind, scope_id, version)
          VALUES (NEW.scope_kind, NEW.scope_id, 1)
          ON CONFLICT (scope_kind, scope_id) DO UPDATE SET version = current.version + 1;
      END IF;
      RETURN NULL;
    END
    $raise$;
    CREATE TRIGGER mcp_context_pins_raise_scope_version
      AFTER INSERT OR UPDATE OR DELETE ON ${schema}.mcp_context_pins
      FOR EACH ROW EXECUTE FUNCTION ${schema}.mcp_context_raise_scope_version();
  `,
  // 4: lists no longer trust the scope versions (they compare a fingerprint of the scope's rows,
  // which no write can leave unchanged; see the store's list). The versions stay, kept right for
  // replicas of the previous release that still read them while a rolling upgrade runs (dropping
  // the table would fail their list statement): the row trigger fires under
  // `session_replication_role = replica` too (ENABLE ALWAYS), and a TRUNCATE, which fires no row
  // trigger, raises every scope's version.
  (schema) => `
    CREATE FUNCTION ${schema}.mcp_context_raise_every_scope_version() RETURNS trigger LANGUAGE plpgsql AS $raise$
    BEGIN
      UPDATE ${schema}.mcp_context_scope_versions SET version = version + 1;
      RETURN NULL;
    END
    $raise$;
    CREATE TRIGGER mcp_context_pins_truncate_raises_scope_versions
      AFTER TRUNCATE ON ${schema}.mcp_context_pins
      FOR EACH STATEMENT EXECUTE FUNCTION ${schema}.mcp_context_raise_every_scope_version();
    ALTER TABLE ${schema}.mcp_context_pins ENABLE ALWAYS TRIGGER mcp_context_pins_raise_scope_version;
    ALTER TABLE ${schema}.mcp_context_pins ENABLE ALWAYS TRIGGER mcp_context_pins_truncate_raises_scope_versions;
  `,
];

/**
 * Brings a schema to the current version, or refuses it untouched: a schema with tables but no
 * version table of ours, a version table naming another application, or a newer version.
 * One transaction under an advisory lock, so replicas starting at once migrate exactly once.
 */
export async function migratePostgresStore(client: PoolClient, schema: string): Promise<void> {
  const quoted = quoteIdentifier(schema);
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`${storeApplication}:${schema}`]);
    const tables = (
      await client.query<{ name: string }>(
        'SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name',
        [schema],
      )
    ).rows.map((row) => row.name);
    let version = 0;
    if (tables.includes('mcp_context_schema')) {
      const rows = (
        await client.query<{ application: string; version: number }>(
          `SELECT application, version FROM ${quoted}.mcp_context_schema`,
        )
      ).rows;
      const row = rows[0];
      if (rows.length !== 1 || row?.application !== storeApplication) {
        throw new ContextError(
          'STORE_FOREIGN',
          `PostgreSQL schema "${schema}" has a version table of another application (${row?.application ?? 'no row'}); refusing to use it as a pin store`,
          { field: 'schema', value: schema },
        );
      }
      version = row.version;
    } else if (tables.length > 0) {
      throw new ContextError(
        'STORE_FOREIGN',
        `PostgreSQL schema "${schema}" holds another application's tables (${tables.join(', ')}); refusing to use it as a pin store`,
        { field: 'schema', value: schema },
      );
    } else {
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoted}`);
      await client.query(
        `CREATE TABLE ${quoted}.mcp_context_schema (application TEXT NOT NULL, version INTEGER NOT NULL)`,
      );
      await client.query(`INSERT INTO ${quoted}.mcp_context_schema VALUES ($1, 0)`, [storeApplication]);
    }
    if (version > postgresMigrations.length) {
      throw new ContextError(
        'STORE_FOREIGN',
        `PostgreSQL schema "${schema}" has pin-store schema version ${version}, newer than this version of mcp-resource-context understands (${postgresMigrations.length}); upgrade the library`,
        { field: 'version', value: version },
      );
    }
    for (const migration of postgresMigrations.slice(version)) await client.query(migration(quoted));
    await client.query(`UPDATE ${quoted}.mcp_context_schema SET version = $1`, [postgresMigrations.length]);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/** A schema name as an SQL identifier (validated as `[a-z_][a-z0-9_]*` by the store's options). */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
