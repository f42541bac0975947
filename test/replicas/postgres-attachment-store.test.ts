import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it, onTestFinished } from 'vitest';
import { PostgresAttachmentStore, type PostgresAttachmentStoreOptions } from '../../src/postgres.js';
import { testAttachmentStore } from '../attachments/attachment-store-contract.js';
import { freshSchema, sql, testDatabaseUrl } from './support/postgres-test-database.js';
import { startSilentServer } from './support/silent-server.js';
import { ThrowawayPostgres } from './support/throwaway-postgres.js';

const run = promisify(execFile);
const pinScript = join(dirname(fileURLToPath(import.meta.url)), 'support/pin-from-postgres-process.ts');

async function openStore(options: PostgresAttachmentStoreOptions = {}): Promise<PostgresAttachmentStore> {
  const store = await PostgresAttachmentStore.open({
    connectionString: testDatabaseUrl,
    schema: options.schema ?? (await freshSchema()),
    ...options,
  });
  onTestFinished(() => store.close());
  return store;
}

/** Pins from a separate Node process, as another host replica would. */
async function pinFromProcess(schema: string, pipelineId: string, count: number, prefix: string) {
  const arguments_ = [testDatabaseUrl, schema, pipelineId, String(count), prefix];
  const { stdout } = await run(process.execPath, ['--import', 'tsx', pinScript, ...arguments_]);
  return JSON.parse(stdout) as string[];
}

testAttachmentStore('PostgresAttachmentStore', () => openStore());

describe('PostgresAttachmentStore', () => {
  it('keeps pins across close and reopen, in order, with every option', async () => {
    const schema = await freshSchema();
    const first = await PostgresAttachmentStore.open({ connectionString: testDatabaseUrl, schema });
    const repos = await first.pin({
      scope: { pipelineId: 'support' },
      server: 'gitnexus',
      uri: 'gitnexus://repos',
    });
    const context = await first.pin({
      scope: { pipelineId: 'support' },
      server: 'gitnexus',
      template: 'gitnexus://repo/{name}/context',
      arguments: { name: 'acme-shop' },
      priority: -2,
      maxTokens: 2000,
    });
    await first.close();

    const reopened = await openStore({ schema });
    expect(await reopened.list({ pipelineId: 'support' })).toEqual([repos, context]);
  });

  it('records its schema version in a version table of its own', async () => {
    const schema = await freshSchema();
    await openStore({ schema });
    const { rows } = await sql(`SELECT application, version FROM "${schema}".mcp_context_schema`);
    expect(rows).toEqual([{ application: 'mcp-resource-context', version: 3 }]);
  });

  it("another replica's pin, re-pin and unpin are seen by the next list; an unchanged scope answers the same list", async () => {
    const schema = await freshSchema();
    const mine = await openStore({ schema });
    const theirs = await openStore({ schema });
    const scope = { pipelineId: 'support' };
    await mine.pin({ scope, server: 's', uri: 'x://a' });
    const first = await mine.list(scope);
    expect(await mine.list(scope)).toBe(first);

    await theirs.pin({ scope, server: 's', uri: 'x://a', priority: 4 });
    const repinned = await mine.list(scope);
    expect(repinned).not.toBe(first);
    expect(repinned).toEqual([expect.objectContaining({ id: first[0]?.id, priority: 4 })]);
    const added = await theirs.pin({ scope, server: 's', uri: 'x://b' });
    const both = await mine.list(scope);
    expect(both.map((pin) => pin.id)).toEqual([first[0]?.id, added.id]);
    expect(both[0]).toBe(repinned[0]);
    expect(await theirs.unpin(added.id)).toBe(true);
    expect((await mine.list(scope)).map((pin) => pin.id)).toEqual([first[0]?.id]);
    expect(await theirs.unpin(first[0]?.id ?? '')).toBe(true);
    expect(await mine.list(scope)).toEqual([]);
    expect(await mine.list({ conversationId: 'never-pinned' })).toEqual([]);
  });

  it('migrates a version-2 schema with pins: scope versions filled in, and a write of an older replica (SQL on the pins table) seen', async () => {
    const schema = await freshSchema();
    const store = await openStore({ schema });
    const scope = { pipelineId: 'support' };
    const pin = await store.pin({ scope, server: 's', uri: 'x://a' });
    await store.close();
    // Back to version 2, as a store of the previous release left it.
    await sql(`DROP TRIGGER mcp_context_pins_raise_scope_version ON "${schema}".mcp_context_pins`);
    await sql(`DROP FUNCTION "${schema}".mcp_context_raise_scope_version()`);
    await sql(`DROP TABLE "${schema}".mcp_context_scope_versions`);
    await sql(`UPDATE "${schema}".mcp_context_schema SET version = 2`);

    const migrated = await openStore({ schema });
    expect((await sql(`SELECT version FROM "${schema}".mcp_context_schema`)).rows).toEqual([{ version: 3 }]);
    expect(
      (await sql(`SELECT scope_kind, scope_id, version FROM "${schema}".mcp_context_scope_versions`)).rows,
    ).toEqual([{ scope_kind: 'pipeline', scope_id: 'support', version: '1' }]);
    const listed = await migrated.list(scope);
    expect(listed).toEqual([expect.objectContaining({ id: pin.id, uri: 'x://a' })]);
    expect(await migrated.list(scope)).toBe(listed);
    // An older replica writes the row itself; the trigger raises the scope's version.
    await sql(`UPDATE "${schema}".mcp_context_pins SET max_tokens = 900 WHERE id = $1`, [pin.id]);
    expect(await migrated.list(scope)).toEqual([expect.objectContaining({ id: pin.id, maxTokens: 900 })]);
  });

  it('replicas opening a new schema at once migrate it exactly once', async () => {
    const schema = await freshSchema();
    const stores = await Promise.all(
      [1, 2, 3, 4].map(() => PostgresAttachmentStore.open({ connectionString: testDatabaseUrl, schema })),
    );
    onTestFinished(async () => {
      await Promise.all(stores.map((store) => store.close()));
    });
    await Promise.all(
      stores.map((store, index) =>
        store.pin({ scope: { pipelineId: 'p' }, server: 's', uri: `x://${index}` }),
      ),
    );
    expect(await stores[0]?.list({ pipelineId: 'p' })).toHaveLength(4);
    expect((await sql(`SELECT count(*)::int AS rows FROM "${schema}".mcp_context_schema`)).rows).toEqual([
      { rows: 1 },
    ]);
  });

  it('four processes pinning at once lose no pin and keep one pin per target', async () => {
    const schema = await freshSchema();
    const store = await openStore({ schema });
    await Promise.all([
      pinFromProcess(schema, 'many', 30, 'gitnexus://a/'),
      pinFromProcess(schema, 'many', 30, 'gitnexus://b/'),
      pinFromProcess(schema, 'same', 20, 'gitnexus://repos='),
      pinFromProcess(schema, 'same', 20, 'gitnexus://repos='),
    ]);
    const many = await store.list({ pipelineId: 'many' });
    expect(new Set(many.map((pin) => ('uri' in pin ? pin.uri : ''))).size).toBe(60);
    expect(await store.list({ pipelineId: 'same' })).toHaveLength(1);
  }, 60_000);

  it('refuses a schema holding another application’s tables with STORE_FOREIGN and leaves it untouched', async () => {
    const schema = await freshSchema();
    await sql(
      `CREATE SCHEMA "${schema}"; CREATE TABLE "${schema}".orders (id int); INSERT INTO "${schema}".orders VALUES (7)`,
    );
    const error = await openStore({ schema }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'STORE_FOREIGN', field: 'schema', value: schema });
    expect((error as Error).message).toContain('orders');
    const tables = await sql('SELECT table_name FROM information_schema.tables WHERE table_schema = $1', [
      schema,
    ]);
    expect(tables.rows).toEqual([{ table_name: 'orders' }]);
  });

  it('refuses a version table that names another application, untouched', async () => {
    const schema = await freshSchema();
    await sql(
      `CREATE SCHEMA "${schema}"; CREATE TABLE "${schema}".mcp_context_schema (application text, version int); INSERT INTO "${schema}".mcp_context_schema VALUES ('other-app', 3)`,
    );
    await expect(openStore({ schema })).rejects.toMatchObject({ code: 'STORE_FOREIGN', field: 'schema' });
    expect((await sql(`SELECT * FROM "${schema}".mcp_context_schema`)).rows).toEqual([
      { application: 'other-app', version: 3 },
    ]);
  });

  it('refuses a pin store written by a newer schema version, naming the version, untouched', async () => {
    const schema = await freshSchema();
    await (await PostgresAttachmentStore.open({ connectionString: testDatabaseUrl, schema })).close();
    await sql(`UPDATE "${schema}".mcp_context_schema SET version = 9`);
    const error = await openStore({ schema }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'STORE_FOREIGN', field: 'version', value: 9 });
    expect((error as Error).message).toContain('newer');
    expect((await sql(`SELECT version FROM "${schema}".mcp_context_schema`)).rows).toEqual([{ version: 9 }]);
  });

  it('fails with STORE_UNAVAILABLE, without credentials, when nothing listens', async () => {
    const error = await PostgresAttachmentStore.open({
      connectionString: 'postgres://someone:hunter2@127.0.0.1:1/none',
    }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      code: 'STORE_UNAVAILABLE',
      field: 'location',
      value: '127.0.0.1:1/none#mcp_context',
    });
    expect((error as Error).message).not.toContain('hunter2');
  });

  it('a server that accepts but never answers is STORE_UNAVAILABLE after the connect timeout, not a hang', async () => {
    const port = await startSilentServer();
    await expect(
      PostgresAttachmentStore.open({
        connectionString: `postgres://postgres@127.0.0.1:${port}/x`,
        connectTimeoutMs: 300,
      }),
    ).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
  });

  it('fails with STORE_CLOSED after close, and closing twice is harmless', async () => {
    const store = await openStore();
    await store.close();
    await store.close();
    await expect(store.list({ pipelineId: 'p' })).rejects.toMatchObject({ code: 'STORE_CLOSED' });
  });

  it('validates its options, naming the field', async () => {
    await expect(PostgresAttachmentStore.open({ schema: 'Robert"); DROP TABLE' })).rejects.toMatchObject({
      code: 'INVALID_OPTION',
      field: 'options.schema',
    });
    await expect(PostgresAttachmentStore.open({ queryTimeoutMs: 0 })).rejects.toMatchObject({
      code: 'INVALID_OPTION',
      field: 'options.queryTimeoutMs',
    });
  });

  it('a PostgreSQL restart keeps the pins; while it is down every call is STORE_UNAVAILABLE', async () => {
    const cluster = await ThrowawayPostgres.create();
    onTestFinished(() => cluster.destroy());
    const store = await PostgresAttachmentStore.open({
      connectionString: cluster.url,
      connectTimeoutMs: 2_000,
    });
    onTestFinished(() => store.close());
    const pin = await store.pin({ scope: { pipelineId: 'p' }, server: 's', uri: 'x://kept' });

    await cluster.stop();
    await expect(store.list({ pipelineId: 'p' })).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    await expect(
      store.pin({ scope: { pipelineId: 'p' }, server: 's', uri: 'x://lost' }),
    ).rejects.toMatchObject({
      code: 'STORE_UNAVAILABLE',
    });

    await cluster.start();
    expect(await store.list({ pipelineId: 'p' })).toEqual([pin]);
  });
});
