import type Database from 'better-sqlite3';
import { ContextError } from '../errors.js';

/**
 * Marks a database file as this library's pin store (`PRAGMA application_id`, SQLite file
 * format §1.3.14): the ASCII bytes "MCPC". A file with another id, or with tables but no id,
 * belongs to someone else and is never migrated.
 */
export const storeApplicationId = 0x4d435043;

/** Schema changes in order; `PRAGMA user_version` records how many have run. Never edit one that shipped. */
export const migrations: readonly ((database: Database.Database) => void)[] = [
  // 1: pins, one row each. `seq` keeps insertion order across processes (AUTOINCREMENT never
  // reuses a value); `target_uri` is the resolved URI the replace-same-target rule keys on.
  (database) => {
    database.exec(`
      CREATE TABLE mcp_context_pins (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
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
      CREATE UNIQUE INDEX mcp_context_pins_target ON mcp_context_pins (scope_kind, scope_id, server, target_uri);
      CREATE INDEX mcp_context_pins_scope ON mcp_context_pins (scope_kind, scope_id, seq);
    `);
  },
  // 2: the pin options of issue 15: inject despite a user-only audience; load as a skill.
  (database) => {
    database.exec(`
      ALTER TABLE mcp_context_pins ADD COLUMN ignore_audience INTEGER;
      ALTER TABLE mcp_context_pins ADD COLUMN skill INTEGER;
    `);
  },
  // 3: each pin's version (Attachment.version), raised by a trigger on every update of its row:
  // by any writer of the file (another process, a library version without this column in its
  // UPDATE), never only by this store's statements. A new row starts at 1; a removed pin added
  // again has a new id, so (id, version) never repeats.
  (database) => {
    database.exec(`
      ALTER TABLE mcp_context_pins ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
      CREATE TRIGGER mcp_context_pins_raise_version AFTER UPDATE ON mcp_context_pins
        WHEN NEW.version = OLD.version
        BEGIN
          UPDATE mcp_context_pins SET version = OLD.version + 1 WHERE seq = NEW.seq;
        END;
    `);
  },
];

/**
 * Brings a freshly opened database to the current schema, or refuses it. Runs in one
 * IMMEDIATE transaction so two processes opening a new file at once migrate it exactly once.
 */
export function migrateStore(database: Database.Database, path: string): void {
  database
    .transaction(() => {
      const { applicationId, version } = checkStoreOwnership(database, path);
      if (applicationId === 0) database.pragma(`application_id = ${storeApplicationId}`);
      for (const migration of migrations.slice(version)) migration(database);
      database.pragma(`user_version = ${migrations.length}`);
    })
    .immediate();
}

/**
 * Whether the file is (or may become) this library's pin store, by reading only: it runs
 * before any statement that writes (journal mode, migrations), so another application's
 * database is refused unchanged. Also the first read of the header: a file that is not SQLite
 * fails here.
 */
export function checkStoreOwnership(
  database: Database.Database,
  path: string,
): { applicationId: number; version: number } {
  const applicationId = database.pragma('application_id', { simple: true }) as number;
  const version = database.pragma('user_version', { simple: true }) as number;
  if (applicationId === 0) {
    const tables = database
      .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
      .pluck()
      .all() as string[];
    if (tables.length > 0 || version !== 0) {
      throw new ContextError(
        'STORE_FOREIGN',
        `${path} is an SQLite database of another application (tables: ${tables.join(', ') || 'none'}, user_version ${version}); refusing to use it as a pin store`,
        { field: 'path', value: path },
      );
    }
  } else if (applicationId !== storeApplicationId) {
    throw new ContextError(
      'STORE_FOREIGN',
      `${path} is an SQLite database of another application (application_id ${applicationId}); refusing to use it as a pin store`,
      { field: 'path', value: path },
    );
  }
  if (version > migrations.length) {
    throw new ContextError(
      'STORE_FOREIGN',
      `${path} has pin-store schema version ${version}, newer than this version of mcp-resource-context understands (${migrations.length}); upgrade the library`,
      { field: 'user_version', value: version },
    );
  }
  return { applicationId, version };
}
