import pg from 'pg';
import {
  postgresMigrations,
  quoteIdentifier,
  storeApplication,
} from '../../../src/replicas/postgres-migrations.js';
import { testDatabaseUrl } from './postgres-test-database.js';

/** A pin row as the previous releases wrote it (their columns, with their defaults). */
export interface RawPin {
  readonly id: string;
  readonly scopeKind: 'pipeline' | 'conversation';
  readonly scopeId: string;
  readonly server: string;
  readonly uri: string;
  readonly maxTokens?: number;
  /**
   * A template pin's columns as the row holds them, `uri` then its expansion (target_uri): an
   * older or foreign writer's row need not be one this library would write.
   */
  readonly template?: { readonly template: string; readonly argumentsJson: string };
}

/**
 * Writes to a pin store's PostgreSQL tables behind the store's back: an operator with psql, a
 * bulk load, a logical-replication apply worker, a replica of an older release writing its SQL.
 * Each write runs on its own connection, as that other party would, and commits before it returns.
 */
export interface PinsBehindTheStore {
  /** `TRUNCATE` of the pins table: no row trigger fires. */
  truncate(): Promise<void>;
  /** A delete under `session_replication_role = replica` (ordinary triggers do not fire). */
  deleteAsReplica(id: string): Promise<void>;
  /** A delete while the table's triggers are disabled (`ALTER TABLE … DISABLE TRIGGER USER`), as bulk loads do. */
  deleteWithTriggersDisabled(id: string): Promise<void>;
  /** An UPDATE of one pin's `max_tokens`, as an older replica's SQL would. */
  updateMaxTokens(id: string, maxTokens: number): Promise<void>;
  /** An INSERT of a pin row, as an older replica's SQL would. */
  insert(pin: RawPin): Promise<void>;
  /** The same INSERT under `session_replication_role = replica`, as a logical-replication apply worker writes. */
  insertAsReplica(pin: RawPin): Promise<void>;
  /** Points one pin at another URI (`uri` and `target_uri`), as an operator's UPDATE would. */
  updateUri(id: string, uri: string): Promise<void>;
}

export function pinsBehindTheStore(schema: string): PinsBehindTheStore {
  const pins = `${quoteIdentifier(schema)}.mcp_context_pins`;
  return {
    truncate: () => inOneSession([[`TRUNCATE ${pins}`]]),
    deleteAsReplica: (id) =>
      inOneSession([
        ['BEGIN'],
        ['SET LOCAL session_replication_role = replica'],
        [`DELETE FROM ${pins} WHERE id = $1`, [id]],
        ['COMMIT'],
      ]),
    deleteWithTriggersDisabled: (id) =>
      inOneSession([
        ['BEGIN'],
        [`ALTER TABLE ${pins} DISABLE TRIGGER USER`],
        [`DELETE FROM ${pins} WHERE id = $1`, [id]],
        [`ALTER TABLE ${pins} ENABLE TRIGGER USER`],
        ['COMMIT'],
      ]),
    updateMaxTokens: (id, maxTokens) =>
      inOneSession([[`UPDATE ${pins} SET max_tokens = $2 WHERE id = $1`, [id, maxTokens]]]),
    insert: (pin) => inOneSession([insertRow(pins, pin)]),
    insertAsReplica: (pin) =>
      inOneSession([
        ['BEGIN'],
        ['SET LOCAL session_replication_role = replica'],
        insertRow(pins, pin),
        ['COMMIT'],
      ]),
    updateUri: (id, uri) =>
      inOneSession([[`UPDATE ${pins} SET uri = $2, target_uri = $2 WHERE id = $1`, [id, uri]]]),
  };
}

/**
 * A new schema at pin-store schema `version`, exactly as a release of that version left it: its
 * version table and the first `version` migrations, nothing of the later ones.
 */
export async function createSchemaAtVersion(schema: string, version: number): Promise<void> {
  const quoted = quoteIdentifier(schema);
  await inOneSession([
    ['BEGIN'],
    [`CREATE SCHEMA ${quoted}`],
    [`CREATE TABLE ${quoted}.mcp_context_schema (application TEXT NOT NULL, version INTEGER NOT NULL)`],
    [`INSERT INTO ${quoted}.mcp_context_schema VALUES ($1, $2)`, [storeApplication, version]],
    ...postgresMigrations.slice(0, version).map((migration): Statement => [migration(quoted)]),
    ['COMMIT'],
  ]);
}

// --- Internal helpers ---

type Statement = readonly [text: string, values?: readonly unknown[]];

function insertRow(pins: string, pin: RawPin): Statement {
  return [
    `INSERT INTO ${pins} (id, scope_kind, scope_id, server, target_uri, uri, template, arguments_json, max_tokens, added_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [
      pin.id,
      pin.scopeKind,
      pin.scopeId,
      pin.server,
      pin.uri,
      pin.template ? null : pin.uri,
      pin.template?.template ?? null,
      pin.template?.argumentsJson ?? null,
      pin.maxTokens ?? null,
      new Date().toISOString(),
    ],
  ];
}

async function inOneSession(statements: readonly Statement[]): Promise<void> {
  const client = new pg.Client({ connectionString: testDatabaseUrl, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    for (const [text, values] of statements) await client.query(text, values as unknown[] | undefined);
  } finally {
    await client.end();
  }
}
