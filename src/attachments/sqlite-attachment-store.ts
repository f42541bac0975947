import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { z } from 'zod';
import { ContextError } from '../errors.js';
import { parseOptions } from '../options/parse-options.js';
import type { Attachment, PinInput, Scope } from '../types.js';
import { parseListLimit, parsePinId, parsePinInput, parseScope } from './attachment-schema.js';
import type { AttachmentStore } from './attachment-store.js';
import { InternedPins } from './interned-pins.js';
import { loadBetterSqlite3 } from './load-better-sqlite3.js';
import { PinCapFloor, pinCapShape } from './pin-cap-floor.js';
import { resolveTargetUri } from './resolve-target-uri.js';
import { scopeKeyOf } from './scope-key.js';
import { checkStoreOwnership, migrateStore } from './sqlite-migrations.js';
import { type PinRow, toAttachment, toPinRow } from './sqlite-pin-row.js';

const storeOptionsSchema = z.strictObject({
  /** How long a write waits for another process's transaction before failing, in milliseconds. */
  busyTimeoutMs: z.number().int().nonnegative().default(5_000),
  ...pinCapShape,
});

/** `minTokens` and `tokenizer`: the provider's, so that pin caps are checked as its planner would. */
export type SqliteAttachmentStoreOptions = z.input<typeof storeOptionsSchema>;

/**
 * Pins in an SQLite file (better-sqlite3): they survive restarts and are shared by every
 * process that opens the same file. WAL mode lets readers run beside a writer; each pin is
 * one IMMEDIATE transaction, so the one-pin-per-target rule holds across processes.
 */
export class SqliteAttachmentStore implements AttachmentStore {
  readonly path: string;
  #database: Database.Database | undefined;
  readonly #capFloor: PinCapFloor;
  /** Each scope's pins as last listed: the same frozen objects while their rows are unchanged. */
  readonly #interned = new InternedPins();
  /**
   * Counts what may have changed the file since: this connection's writes, and the commits of
   * other connections (processes, replicas) seen as a new `PRAGMA data_version`. A scope listed
   * at the same count is answered without a query.
   */
  #changes = 0;
  #dataVersion: number | undefined;
  #statements: { dataVersion: Database.Statement; list: Database.Statement } | undefined;

  constructor(path: string, options: SqliteAttachmentStoreOptions = {}) {
    parseOptions(z.string().min(1), path, 'path');
    const { busyTimeoutMs, ...caps } = parseOptions(storeOptionsSchema, options, 'options');
    this.#capFloor = new PinCapFloor(caps);
    this.path = path;
    const Sqlite = loadBetterSqlite3();
    let database: Database.Database | undefined;
    try {
      database = new Sqlite(path, { timeout: busyTimeoutMs });
      // Read-only first: another application's file is refused before anything writes to it.
      checkStoreOwnership(database, path);
      database.pragma('journal_mode = WAL');
      migrateStore(database, path);
    } catch (error) {
      database?.close();
      throw toStoreError(error, path);
    }
    this.#database = database;
  }

  async pin(input: PinInput): Promise<Attachment> {
    const parsed = parsePinInput(input);
    // A template with missing arguments is refused now, not on some later turn.
    const targetUri = resolveTargetUri(parsed);
    await this.#capFloor.check(parsed, targetUri);
    const fresh: Attachment = { ...parsed, id: randomUUID(), addedAt: new Date().toISOString() };
    const row = toPinRow(fresh, targetUri);
    const stored = this.#write((database) =>
      database
        .transaction((): Stored => {
          const existing = database
            .prepare(
              'SELECT id FROM mcp_context_pins WHERE scope_kind = ? AND scope_id = ? AND server = ? AND target_uri = ?',
            )
            .get(row.scope_kind, row.scope_id, row.server, row.target_uri) as Pick<PinRow, 'id'> | undefined;
          if (existing) {
            // Re-pinning a target updates that pin in place: same id, addedAt and place in the order
            // (the update raises its version, see migration 3).
            database
              .prepare(
                `UPDATE mcp_context_pins SET uri = @uri, template = @template, arguments_json = @arguments_json,
                   priority = @priority, max_tokens = @max_tokens, ignore_audience = @ignore_audience, skill = @skill
                 WHERE id = @existing_id`,
              )
              .run({ ...row, existing_id: existing.id });
          } else {
            database
              .prepare(
                `INSERT INTO mcp_context_pins
                   (id, scope_kind, scope_id, server, target_uri, uri, template, arguments_json, priority, max_tokens, added_at, ignore_audience, skill)
                 VALUES
                   (@id, @scope_kind, @scope_id, @server, @target_uri, @uri, @template, @arguments_json, @priority, @max_tokens, @added_at, @ignore_audience, @skill)`,
              )
              .run(row);
          }
          return database
            .prepare('SELECT id, added_at, version FROM mcp_context_pins WHERE id = ?')
            .get(existing?.id ?? row.id) as Stored;
        })
        .immediate(),
    );
    return structuredClone({
      ...fresh,
      id: stored.id,
      addedAt: stored.added_at,
      version: String(stored.version),
    });
  }

  async unpin(id: string): Promise<boolean> {
    parsePinId(id);
    return this.#write(
      (database) => database.prepare('DELETE FROM mcp_context_pins WHERE id = ?').run(id).changes > 0,
    );
  }

  async list(scope: Scope): Promise<readonly Attachment[]> {
    parseScope(scope);
    const [kind, scopeId] =
      'pipelineId' in scope ? ['pipeline', scope.pipelineId] : ['conversation', scope.conversationId];
    const key = scopeKeyOf(scope);
    return this.#run((database) => {
      const statements = this.#prepared(database);
      // Nothing written since this scope was listed, by this connection or any other: its pins.
      const dataVersion = statements.dataVersion.get() as number;
      if (dataVersion !== this.#dataVersion) {
        this.#dataVersion = dataVersion;
        this.#changes++;
      }
      const stamp = this.#changes;
      const known = this.#interned.known(key, stamp);
      if (known) return known;
      return this.#interned.pinsOf(key, statements.list.all(kind, scopeId) as PinRow[], this.path, stamp);
    });
  }

  async listAll(limit: number): Promise<Attachment[]> {
    parseListLimit(limit);
    const rows = this.#run(
      (database) =>
        database.prepare('SELECT * FROM mcp_context_pins ORDER BY seq LIMIT ?').all(limit) as PinRow[],
    );
    return rows.map((row) => toAttachment(row, this.path));
  }

  /** Closes the file; later calls fail with STORE_CLOSED. Closing twice is harmless. */
  async close(): Promise<void> {
    this.#capFloor.dispose();
    this.#database?.close();
    this.#database = undefined;
    this.#statements = undefined;
  }

  // --- Internal helpers ---

  /** A write of this connection's (a commit it makes leaves its own data_version as it was). */
  #write<T>(operation: (database: Database.Database) => T): T {
    try {
      return this.#run(operation);
    } finally {
      this.#changes++;
    }
  }

  /** The statements every list runs, prepared once per open file. */
  #prepared(database: Database.Database) {
    this.#statements ??= {
      dataVersion: database.prepare('PRAGMA data_version').pluck(),
      list: database.prepare(
        'SELECT * FROM mcp_context_pins WHERE scope_kind = ? AND scope_id = ? ORDER BY seq',
      ),
    };
    return this.#statements;
  }

  #run<T>(operation: (database: Database.Database) => T): T {
    const database = this.#database;
    if (!database) {
      throw new ContextError('STORE_CLOSED', `the pin store ${this.path} is closed`, {
        field: 'path',
        value: this.path,
      });
    }
    try {
      return operation(database);
    } catch (error) {
      throw toStoreError(error, this.path);
    }
  }
}

// --- Module helpers ---

/** What a pin's write leaves in its row, as `pin()` returns it. */
type Stored = Pick<PinRow, 'id' | 'added_at'> & { readonly version: number };

/** SQLite's result codes, as better-sqlite3 names them, turned into this library's codes. */
function toStoreError(error: unknown, path: string): unknown {
  if (ContextError.isInstance(error)) return error;
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  const details = { field: 'path', value: path };
  if (code === 'SQLITE_NOTADB' || (typeof code === 'string' && code.startsWith('SQLITE_CORRUPT'))) {
    return new ContextError('STORE_CORRUPT', `${path} is not a usable pin store: ${message}`, details, error);
  }
  // SQLITE_BUSY after the busy timeout, SQLITE_CANTOPEN, SQLITE_READONLY, SQLITE_FULL, a missing directory …
  return new ContextError('STORE_UNAVAILABLE', `pin store ${path}: ${message}`, details, error);
}
