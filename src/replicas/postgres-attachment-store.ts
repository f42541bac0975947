import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { parseListLimit, parsePinId, parsePinInput, parseScope } from '../attachments/attachment-schema.js';
import type { AttachmentStore } from '../attachments/attachment-store.js';
import { InternedPins } from '../attachments/interned-pins.js';
import { PinCapFloor, type PinCapOptions, pinCapShape } from '../attachments/pin-cap-floor.js';
import { resolveTargetUri } from '../attachments/resolve-target-uri.js';
import { scopeKeyOf } from '../attachments/scope-key.js';
import { type PinRow, toAttachment, toPinRow } from '../attachments/sqlite-pin-row.js';
import { ContextError } from '../errors.js';
import { parseOptions } from '../options/parse-options.js';
import type { Attachment, PinInput, Scope } from '../types.js';
import { migratePostgresStore, quoteIdentifier } from './postgres-migrations.js';
import { type PostgresAttachmentStoreOptions, postgresStoreOptionsSchema } from './postgres-store-options.js';

export type { PostgresAttachmentStoreOptions };

/**
 * Pins in PostgreSQL, shared by every host replica that points at the same database and schema.
 * Each pin is one statement (an upsert on the target's unique index), so pins racing from many
 * processes lose nothing and keep one pin per target, updated in place. Every failure to reach the server is a
 * STORE_UNAVAILABLE within the connect or query timeout, never a hang.
 */
export class PostgresAttachmentStore implements AttachmentStore {
  /** Where the pins are, without credentials: `host:port/database#schema`. */
  readonly location: string;
  readonly #pool: pg.Pool;
  readonly #table: string;
  readonly #capFloor: PinCapFloor;
  /** Each scope's pins as last listed: the same frozen objects while their rows are unchanged. */
  readonly #interned = new InternedPins();
  #closed = false;

  private constructor(pool: pg.Pool, schema: string, location: string, capFloor: PinCapFloor) {
    this.#pool = pool;
    this.#capFloor = capFloor;
    this.#table = `${quoteIdentifier(schema)}.mcp_context_pins`;
    this.location = location;
  }

  /**
   * Connects, then migrates the schema or refuses it (STORE_FOREIGN) without changing it.
   * `minTokens` and `tokenizer`: the provider's, so that pin caps are checked as its planner would.
   */
  static async open(
    options: PostgresAttachmentStoreOptions & PinCapOptions = {},
  ): Promise<PostgresAttachmentStore> {
    const { minTokens, tokenizer, ...parsed } = parseOptions(
      postgresStoreOptionsSchema.extend(pinCapShape),
      options,
      'options',
    );
    const location = describeLocation(parsed.connectionString, parsed.schema);
    const pool = new pg.Pool({
      ...(parsed.connectionString !== undefined && { connectionString: parsed.connectionString }),
      connectionTimeoutMillis: parsed.connectTimeoutMs,
      query_timeout: parsed.queryTimeoutMs,
      max: parsed.maxConnections,
      keepAlive: true,
      application_name: 'mcp-resource-context',
    });
    // An idle connection that the server drops emits here; unhandled, it would crash the host.
    // The next query gets a new connection or a STORE_UNAVAILABLE.
    pool.on('error', () => undefined);
    try {
      const client = await pool.connect();
      try {
        await migratePostgresStore(client, parsed.schema);
      } finally {
        client.release();
      }
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw toStoreError(error, location);
    }
    return new PostgresAttachmentStore(
      pool,
      parsed.schema,
      location,
      new PinCapFloor({ minTokens, ...(tokenizer !== undefined && { tokenizer }) }),
    );
  }

  async pin(input: PinInput): Promise<Attachment> {
    const parsed = parsePinInput(input);
    // A template with missing arguments is refused now, not on some later turn.
    const targetUri = resolveTargetUri(parsed);
    await this.#capFloor.check(parsed, targetUri);
    const fresh: Attachment = { ...parsed, id: randomUUID(), addedAt: new Date().toISOString() };
    const row = toPinRow(fresh, targetUri);
    // One statement, one transaction: the one-pin-per-target rule cannot race another process.
    // Re-pinning a target updates that pin in place: its id, addedAt and seq (place in the order) stay.
    const result = await this.#query<Pick<PinRow, 'id' | 'added_at'> & { version: string }>(
      `INSERT INTO ${this.#table}
         (id, scope_kind, scope_id, server, target_uri, uri, template, arguments_json, priority, max_tokens, added_at,
          ignore_audience, skill)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
       ON CONFLICT (scope_kind, scope_id, server, target_uri) DO UPDATE SET
         uri = EXCLUDED.uri, template = EXCLUDED.template,
         arguments_json = EXCLUDED.arguments_json, priority = EXCLUDED.priority,
         max_tokens = EXCLUDED.max_tokens, ignore_audience = EXCLUDED.ignore_audience, skill = EXCLUDED.skill
       RETURNING id, added_at, xmin::text AS version`,
      [
        row.id,
        row.scope_kind,
        row.scope_id,
        row.server,
        row.target_uri,
        row.uri,
        row.template,
        row.arguments_json,
        row.priority,
        row.max_tokens,
        row.added_at,
        row.ignore_audience,
        row.skill,
      ],
    );
    const stored = result.rows[0];
    if (!stored) throw toStoreError(new Error('the upsert returned no row'), this.location);
    return structuredClone({ ...fresh, id: stored.id, addedAt: stored.added_at, version: stored.version });
  }

  async unpin(id: string): Promise<boolean> {
    parsePinId(id);
    const result = await this.#query(`DELETE FROM ${this.#table} WHERE id = $1`, [id]);
    return (result.rowCount ?? 0) > 0;
  }

  async list(scope: Scope): Promise<readonly Attachment[]> {
    parseScope(scope);
    const [kind, scopeId] =
      'pipelineId' in scope ? ['pipeline', scope.pipelineId] : ['conversation', scope.conversationId];
    const key = scopeKeyOf(scope);
    // The fingerprint its pins were last listed at, if they are still held.
    const known = this.#interned.stampOf(key);
    // One statement, one snapshot: the fingerprint of the scope's rows, and the rows unless it is
    // the one last listed (then a single row, of the fingerprint alone). The fingerprint is the
    // count of the rows and a sum of hashes of the transaction ids that wrote them (`xmin`):
    // every write makes a new row version whose xmin no row visible before it can hold (its
    // transaction had not committed), and a delete lowers the count. No write escapes it —
    // TRUNCATE, a replica-role or trigger-disabled write, a restore, an older replica's SQL —
    // as writes escape the row trigger behind the scope versions of schema version 3.
    const result = await this.#query<ScopeRow>(
      `SELECT scope.fingerprint, p.id, p.scope_kind, p.scope_id, p.server, p.target_uri, p.uri, p.template,
              p.arguments_json, p.priority, p.max_tokens, p.added_at, p.ignore_audience, p.skill,
              p.xmin::text AS version
         FROM (SELECT count(*) || ':' || coalesce(sum(hashtextextended(written.xmin::text, 0)), 0) AS fingerprint
                 FROM ${this.#table} written WHERE written.scope_kind = $1::text AND written.scope_id = $2::text) AS scope
         LEFT JOIN ${this.#table} p ON p.scope_kind = $1::text AND p.scope_id = $2::text
           AND scope.fingerprint IS DISTINCT FROM $3::text
       ORDER BY p.seq`,
      [kind, scopeId, known ?? null],
      // Prepared once per connection: planned once, not on every turn. Its columns are named, so
      // a later migration that adds one does not change what the prepared statement returns.
      'mcp_context_list_scope_versions',
    );
    const fingerprint = result.rows[0]?.fingerprint ?? undefined;
    if (fingerprint !== undefined && fingerprint === known) {
      const pins = this.#interned.known(key, fingerprint);
      if (pins) return pins;
      // Let go (the bound) while the query ran: asked again, without a fingerprint, for the rows.
      return this.list(scope);
    }
    const rows = result.rows.filter((row): row is ScopeRow & PinRow => row.id !== null);
    return this.#interned.pinsOf(key, rows, this.location, fingerprint);
  }

  async listAll(limit: number): Promise<Attachment[]> {
    parseListLimit(limit);
    const result = await this.#query<PinRow>(
      `SELECT *, xmin::text AS version FROM ${this.#table} ORDER BY seq LIMIT $1`,
      [limit],
    );
    return result.rows.map((row) => toAttachment(row, this.location));
  }

  /** Closes the connections; later calls fail with STORE_CLOSED. Closing twice is harmless. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#capFloor.dispose();
    await this.#pool.end();
  }

  // --- Internal helpers ---

  async #query<Row extends pg.QueryResultRow>(
    text: string,
    values: readonly unknown[],
    name?: string,
  ): Promise<pg.QueryResult<Row>> {
    if (this.#closed) {
      throw new ContextError('STORE_CLOSED', `the pin store ${this.location} is closed`, {
        field: 'location',
        value: this.location,
      });
    }
    try {
      return await this.#pool.query<Row>({
        text,
        values: values as unknown[],
        ...(name !== undefined && { name }),
      });
    } catch (error) {
      throw toStoreError(error, this.location);
    }
  }
}

// --- Module helpers ---

/** Host, port, database and schema: never the user or password of the connection string. */
function describeLocation(connectionString: string | undefined, schema: string): string {
  if (connectionString === undefined) return `(PG* environment)#${schema}`;
  try {
    const url = new URL(connectionString);
    return `${url.hostname}:${url.port || '5432'}${url.pathname}#${schema}`;
  } catch {
    return `(connection string)#${schema}`;
  }
}

function toStoreError(error: unknown, location: string): unknown {
  if (ContextError.isInstance(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  // Refused or dropped connections, timeouts, an administrator shutdown (57P01), too many clients …
  return new ContextError(
    'STORE_UNAVAILABLE',
    `pin store ${location}: ${message}`,
    { field: 'location', value: location },
    error,
  );
}

/** A row of the list query: the scope's fingerprint, and one pin's columns (all null for none). */
type ScopeRow = { readonly fingerprint: string } & {
  readonly [Column in keyof PinRow]: PinRow[Column] | null;
};
