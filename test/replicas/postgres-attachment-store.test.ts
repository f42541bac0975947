import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { PostgresAttachmentStore, type PostgresAttachmentStoreOptions } from '../../src/postgres.js';
import { testAttachmentStore } from '../attachments/attachment-store-contract.js';
import { testStoreBoundary } from '../attachments/store-boundary-contract.js';
import {
  createSchemaAtVersion,
  type PinsBehindTheStore,
  pinsBehindTheStore,
} from './support/pins-behind-the-store.js';
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
testStoreBoundary('PostgresAttachmentStore', () => openStore());

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
    expect(rows).toEqual([{ application: 'mcp-resource-context', version: 4 }]);
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

  // Writes no trigger sees (or that skip the store): a list must not answer the pins it last read.
  it.each<[string, (behind: PinsBehindTheStore, pins: readonly { id: string }[]) => Promise<void>, string[]]>(
    [
      ['a TRUNCATE', (behind) => behind.truncate(), []],
      [
        'a delete under session_replication_role = replica',
        (behind, [a]) => behind.deleteAsReplica(a?.id ?? ''),
        ['x://b'],
      ],
      [
        "a delete with the table's triggers disabled",
        (behind, [, b]) => behind.deleteWithTriggersDisabled(b?.id ?? ''),
        ['x://a'],
      ],
      [
        "an older replica's INSERT (SQL on the pins table)",
        (behind) =>
          behind.insert({
            id: 'raw-1',
            scopeKind: 'pipeline',
            scopeId: 'support',
            server: 's',
            uri: 'x://c',
          }),
        ['x://a', 'x://b', 'x://c'],
      ],
    ],
  )('%s behind the store is seen by the next list of every replica', async (_, write, expected) => {
    const schema = await freshSchema();
    const mine = await openStore({ schema });
    const theirs = await openStore({ schema });
    const scope = { pipelineId: 'support' };
    const pins = [
      await mine.pin({ scope, server: 's', uri: 'x://a' }),
      await mine.pin({ scope, server: 's', uri: 'x://b' }),
    ];
    // Both replicas hold the scope as listed, unchanged since.
    for (const store of [mine, theirs]) expect(await store.list(scope)).toBe(await store.list(scope));

    await write(pinsBehindTheStore(schema), pins);
    for (const store of [mine, theirs]) {
      expect((await store.list(scope)).map((pin) => ('uri' in pin ? pin.uri : ''))).toEqual(expected);
    }
  });

  it("an older replica's UPDATE of a pin row is seen by the next list", async () => {
    const schema = await freshSchema();
    const store = await openStore({ schema });
    const scope = { pipelineId: 'support' };
    const pin = await store.pin({ scope, server: 's', uri: 'x://a' });
    expect(await store.list(scope)).toBe(await store.list(scope));
    await pinsBehindTheStore(schema).updateMaxTokens(pin.id, 900);
    const [updated] = await store.list(scope);
    expect(updated).toEqual(expect.objectContaining({ id: pin.id, maxTokens: 900 }));
    // Its SQL names no version: the row's own (xmin) is new all the same.
    expect(updated?.version).toEqual(expect.any(String));
    expect(updated?.version).not.toBe(pin.version);
  });

  it("a pin's version is the same in every replica; another process's re-pin is a new one", async () => {
    const schema = await freshSchema();
    const store = await openStore({ schema });
    const replica = await openStore({ schema });
    const scope = { pipelineId: 'support' };
    const pin = await store.pin({ scope, server: 'gitnexus', uri: 'gitnexus://repos' });
    const versionsIn = async (one: PostgresAttachmentStore) =>
      (await one.list(scope)).map((listed) => [listed.id, listed.version]);
    expect(await versionsIn(replica)).toEqual([[pin.id, pin.version]]);
    expect(await versionsIn(store)).toEqual([[pin.id, pin.version]]);

    // Another process re-pins the same target: updated in place, under a new version.
    expect(await pinFromProcess(schema, 'support', 1, 'gitnexus://repos=')).toEqual([pin.id]);
    const [[, after]] = (await versionsIn(store)) as [[string, string]];
    expect(after).not.toBe(pin.version);
    expect(await versionsIn(replica)).toEqual([[pin.id, after]]);
    await pinFromProcess(schema, 'support', 1, 'gitnexus://repos=');
    const [[, third]] = (await versionsIn(replica)) as [[string, string]];
    expect(new Set([pin.version, after, third]).size).toBe(3);
    expect(await versionsIn(store)).toEqual([[pin.id, third]]);
  });

  it('migrates a version-2 schema with pins of the previous release: each listed, and their next write seen', async () => {
    const schema = await freshSchema();
    await createSchemaAtVersion(schema, 2);
    const behind = pinsBehindTheStore(schema);
    await behind.insert({
      id: 'old-1',
      scopeKind: 'pipeline',
      scopeId: 'support',
      server: 's',
      uri: 'x://a',
    });

    const migrated = await openStore({ schema });
    expect((await sql(`SELECT version FROM "${schema}".mcp_context_schema`)).rows).toEqual([{ version: 4 }]);
    const scope = { pipelineId: 'support' };
    const listed = await migrated.list(scope);
    expect(listed).toEqual([expect.objectContaining({ id: 'old-1', uri: 'x://a' })]);
    expect(await migrated.list(scope)).toBe(listed);
    await behind.updateMaxTokens('old-1', 900);
    expect(await migrated.list(scope)).toEqual([expect.objectContaining({ id: 'old-1', maxTokens: 900 })]);
  });

  it('migrates a version-3 schema keeping its pins, and hardens its scope versions for replicas of that release', async () => {
    const schema = await freshSchema();
    await createSchemaAtVersion(schema, 3);
    const behind = pinsBehindTheStore(schema);
    await behind.insert({
      id: 'old-1',
      scopeKind: 'pipeline',
      scopeId: 'support',
      server: 's',
      uri: 'x://a',
    });
    await behind.insert({ id: 'old-2', scopeKind: 'conversation', scopeId: 'c', server: 's', uri: 'x://b' });

    const migrated = await openStore({ schema });
    expect((await sql(`SELECT version FROM "${schema}".mcp_context_schema`)).rows).toEqual([{ version: 4 }]);
    expect(await migrated.list({ pipelineId: 'support' })).toEqual([
      expect.objectContaining({ id: 'old-1', uri: 'x://a' }),
    ]);
    expect(await migrated.list({ conversationId: 'c' })).toEqual([
      expect.objectContaining({ id: 'old-2', uri: 'x://b' }),
    ]);

    // A replica of the previous release still running (a rolling upgrade) reads the scope
    // versions: a replica-role delete and a TRUNCATE now raise them too.
    const versions = async () =>
      (
        await sql(
          `SELECT scope_kind || ':' || scope_id AS scope, version::int FROM "${schema}".mcp_context_scope_versions ORDER BY 1`,
        )
      ).rows;
    expect(await versions()).toEqual([
      { scope: 'conversation:c', version: 1 },
      { scope: 'pipeline:support', version: 1 },
    ]);
    await behind.deleteAsReplica('old-1');
    expect(await versions()).toEqual([
      { scope: 'conversation:c', version: 1 },
      { scope: 'pipeline:support', version: 2 },
    ]);
    await behind.truncate();
    expect(await versions()).toEqual([
      { scope: 'conversation:c', version: 2 },
      { scope: 'pipeline:support', version: 3 },
    ]);
    expect(await migrated.list({ conversationId: 'c' })).toEqual([]);
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

  it('NUL in a scope id, server or URI and a URI past the index are bad input, refused before any query', async () => {
    const store = await openStore();
    const scope = { conversationId: 'c-1' };
    // Every statement the store sends goes through its pool's query.
    const query = vi.spyOn(pg.Pool.prototype, 'query');
    onTestFinished(() => query.mockRestore());
    const refusals: [operation: string, Promise<unknown>, code: string, field: string][] = [
      [
        'pin',
        store.pin({ scope: { conversationId: 'c\u0000' }, server: 's', uri: 'x://a' }),
        'INVALID_ATTACHMENT',
        'pin.scope.conversationId',
      ],
      ['pin', store.pin({ scope, server: 'crm\u0000', uri: 'x://a' }), 'INVALID_ATTACHMENT', 'pin.server'],
      ['pin', store.pin({ scope, server: 's', uri: 'x://a\u0000' }), 'INVALID_ATTACHMENT', 'pin.uri'],
      // 3,000 bytes: past what the unique index (scope, server, URI) can hold in one btree entry.
      [
        'pin',
        store.pin({ scope, server: 's', uri: `x://${'ab'.repeat(1500)}` }),
        'INVALID_ATTACHMENT',
        'pin.uri',
      ],
      ['list', store.list({ conversationId: 'c\u0000' }), 'INVALID_OPTION', 'scope.conversationId'],
      ['unpin', store.unpin('pin\u0000'), 'INVALID_OPTION', 'id'],
    ];
    const errors = await Promise.all(
      refusals.map(([, refused]) => refused.catch((caught: unknown) => caught)),
    );
    expect(errors).toMatchObject(refusals.map(([, , code, field]) => ({ code, field })));
    expect(query).not.toHaveBeenCalled();
    // The store is as it was: a good pin after them is kept.
    query.mockRestore();
    await store.pin({ scope, server: 's', uri: 'x://a' });
    expect(await store.list(scope)).toHaveLength(1);
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
