import { type ChildProcessWithoutNullStreams, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { describe, expect, it, onTestFinished } from 'vitest';
import { migrations, storeApplicationId } from '../../src/attachments/sqlite-migrations.js';
import { ContextError } from '../../src/errors.js';
import { SqliteAttachmentStore } from '../../src/sqlite.js';
import { testAttachmentStore } from './attachment-store-contract.js';
import { testStoreBoundary } from './store-boundary-contract.js';

const run = promisify(execFile);
const pinScript = join(dirname(fileURLToPath(import.meta.url)), 'sqlite-support/pin-from-process.ts');

/** A fresh directory for one test, removed when it finishes. */
function temporaryDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), 'mcp-context-sqlite-'));
  onTestFinished(() => rmSync(directory, { recursive: true, force: true }));
  return directory;
}

function openStore(path: string): SqliteAttachmentStore {
  const store = new SqliteAttachmentStore(path);
  onTestFinished(() => store.close());
  return store;
}

/** Pins from a separate Node process, as a second host replica would. */
async function pinFromProcess(path: string, pipelineId: string, count: number, prefix: string) {
  const { stdout } = await run(process.execPath, [
    '--import',
    'tsx',
    pinScript,
    path,
    pipelineId,
    String(count),
    prefix,
  ]);
  return JSON.parse(stdout) as string[];
}

/**
 * A pinning process that waits at a barrier: `ready` resolves once its store is open, `go()`
 * lets it pin, `pinning` resolves just before its first pin, `done` gives the ids it printed.
 */
function startPinningProcess(path: string, pipelineId: string, count: number, prefix: string) {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [
    '--import',
    'tsx',
    pinScript,
    path,
    pipelineId,
    String(count),
    prefix,
    'wait',
  ]);
  onTestFinished(() => {
    child.kill();
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  const said = (line: string) =>
    new Promise<void>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        stderr += chunk.toString();
        if (stderr.split('\n').includes(line)) {
          child.stderr.off('data', onData);
          resolve();
        }
      };
      child.stderr.on('data', onData);
      child.once('exit', (code) => reject(new Error(`exited (${code}) before "${line}": ${stderr}`)));
    });
  const ready = said('ready');
  const pinning = ready.then(() => said('pinning'));
  const done = new Promise<string[]>((resolve, reject) =>
    child.once('exit', (code) =>
      code === 0 ? resolve(JSON.parse(stdout) as string[]) : reject(new Error(`exit ${code}: ${stderr}`)),
    ),
  );
  return { ready, pinning, done, go: () => child.stdin.write('go\n') };
}

function storeError(create: () => unknown): ContextError {
  try {
    create();
  } catch (error) {
    if (ContextError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a ContextError');
}

testAttachmentStore('SqliteAttachmentStore', async () =>
  openStore(join(temporaryDirectory(), 'pins.sqlite')),
);
testStoreBoundary('SqliteAttachmentStore', async () => openStore(join(temporaryDirectory(), 'pins.sqlite')));

describe('SqliteAttachmentStore', () => {
  it('keeps pins across close and reopen, in order, with every option', async () => {
    const path = join(temporaryDirectory(), 'pins.sqlite');
    const first = new SqliteAttachmentStore(path);
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

    const reopened = openStore(path);
    expect(await reopened.list({ pipelineId: 'support' })).toEqual([repos, context]);
  });

  it('opens the file in WAL mode, marked as a pin store at schema version 3', async () => {
    const path = join(temporaryDirectory(), 'pins.sqlite');
    await openStore(path).close();
    const database = new Database(path, { readonly: true });
    onTestFinished(() => {
      database.close();
    });
    expect(database.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(database.pragma('application_id', { simple: true })).toBe(storeApplicationId);
    expect(database.pragma('user_version', { simple: true })).toBe(3);
  });

  it("a pin's version is the same in every process that reads the file; another process's re-pin is a new one", async () => {
    const path = join(temporaryDirectory(), 'pins.sqlite');
    const store = openStore(path);
    const reader = openStore(path);
    const scope = { pipelineId: 'support' };
    const pin = await store.pin({ scope, server: 'gitnexus', uri: 'gitnexus://repos' });
    const versionsIn = async (one: SqliteAttachmentStore) =>
      (await one.list(scope)).map((listed) => [listed.id, listed.version]);
    expect(await versionsIn(reader)).toEqual([[pin.id, pin.version]]);

    // Another process re-pins the same target: the pin is updated in place, under a new version.
    expect(await pinFromProcess(path, 'support', 1, 'gitnexus://repos=')).toEqual([pin.id]);
    const [[, after]] = (await versionsIn(store)) as [[string, string]];
    expect(after).not.toBe(pin.version);
    expect(await versionsIn(reader)).toEqual([[pin.id, after]]);
    expect(await versionsIn(store)).toEqual([[pin.id, after]]);
    await pinFromProcess(path, 'support', 1, 'gitnexus://repos=');
    const [[, third]] = (await versionsIn(reader)) as [[string, string]];
    expect(new Set([pin.version, after, third]).size).toBe(3);
  });

  it('migrates a file of schema version 2: its pins start at version 1, and an UPDATE that does not name the column (an older release’s) raises it', async () => {
    const path = join(temporaryDirectory(), 'pins.sqlite');
    const old = new Database(path);
    old.pragma(`application_id = ${storeApplicationId}`);
    for (const migration of migrations.slice(0, 2)) migration(old);
    old.pragma('user_version = 2');
    old
      .prepare(
        "INSERT INTO mcp_context_pins (id, scope_kind, scope_id, server, target_uri, uri, added_at) VALUES ('old', 'pipeline', 'p', 's', 'x://a', 'x://a', '2026-12-01T00:00:00.000Z')",
      )
      .run();
    const store = openStore(path);
    expect((await store.list({ pipelineId: 'p' }))[0]).toMatchObject({ id: 'old', version: '1' });
    old.prepare("UPDATE mcp_context_pins SET max_tokens = 900 WHERE id = 'old'").run();
    old.close();
    expect((await store.list({ pipelineId: 'p' }))[0]).toMatchObject({
      id: 'old',
      maxTokens: 900,
      version: '2',
    });
  });

  it('a second process sees the pins the first wrote, and the first sees the second’s', async () => {
    const path = join(temporaryDirectory(), 'pins.sqlite');
    const store = openStore(path);
    await store.pin({ scope: { pipelineId: 'support' }, server: 'gitnexus', uri: 'gitnexus://repos' });

    const ids = await pinFromProcess(path, 'support', 2, 'gitnexus://note/');

    const pins = await store.list({ pipelineId: 'support' });
    expect(pins.map((pin) => ('uri' in pin ? pin.uri : ''))).toEqual([
      'gitnexus://repos',
      'gitnexus://note/0',
      'gitnexus://note/1',
    ]);
    expect(pins.slice(1).map((pin) => pin.id)).toEqual(ids);
  });

  it('four processes whose writes are held by another writer all wait, then lose no pin and keep one pin per target', async () => {
    const path = join(temporaryDirectory(), 'pins.sqlite');
    openStore(path);
    const processes = [
      startPinningProcess(path, 'many', 20, 'gitnexus://a/'),
      startPinningProcess(path, 'many', 20, 'gitnexus://b/'),
      startPinningProcess(path, 'same', 10, 'gitnexus://repos='),
      startPinningProcess(path, 'same', 10, 'gitnexus://repos='),
    ];
    await Promise.all(processes.map((child) => child.ready));
    // Another writer holds the write lock: every process's first pin has to wait for it, so all
    // four are writing at the moment it lets go.
    const writer = new Database(path);
    writer.exec('BEGIN IMMEDIATE');
    for (const child of processes) child.go();
    await Promise.all(processes.map((child) => child.pinning));
    writer.exec('COMMIT');
    writer.close();
    const ids = await Promise.all(processes.map((child) => child.done));

    const store = openStore(path);
    const many = await store.list({ pipelineId: 'many' });
    expect(many).toHaveLength(40);
    expect(new Set(many.map((pin) => pin.id))).toEqual(new Set([...(ids[0] ?? []), ...(ids[1] ?? [])]));
    const same = await store.list({ pipelineId: 'same' });
    expect(same).toHaveLength(1);
    // Pinning the same target again replaces its pin: the one left is the last of the 20 written.
    expect([...(ids[2] ?? []), ...(ids[3] ?? [])]).toContain(same[0]?.id);
  }, 60_000);

  it('refuses a file that is not SQLite with STORE_CORRUPT', () => {
    const path = join(temporaryDirectory(), 'pins.sqlite');
    writeFileSync(
      path,
      'this is not a database, just text that is long enough to have a header\n'.repeat(20),
    );
    const error = storeError(() => new SqliteAttachmentStore(path));
    expect(error).toMatchObject({ code: 'STORE_CORRUPT', field: 'path', value: path });
    expect(error.message).toContain(path);
  });

  it('refuses another application’s SQLite database with STORE_FOREIGN and leaves it untouched', () => {
    const path = join(temporaryDirectory(), 'app.sqlite');
    const foreign = new Database(path);
    foreign.exec('CREATE TABLE orders (id INTEGER PRIMARY KEY); INSERT INTO orders VALUES (7)');
    foreign.close();
    const before = readFileSync(path);

    const error = storeError(() => new SqliteAttachmentStore(path));
    // Not one byte written: not even the journal mode (file header bytes 18–19) changed.
    expect(readFileSync(path).equals(before)).toBe(true);
    expect(existsSync(`${path}-wal`)).toBe(false);
    expect(error).toMatchObject({ code: 'STORE_FOREIGN', field: 'path' });
    expect(error.message).toContain('orders');

    const check = new Database(path, { readonly: true });
    onTestFinished(() => {
      check.close();
    });
    expect(check.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").pluck().all()).toEqual([
      'orders',
    ]);
    expect(check.pragma('application_id', { simple: true })).toBe(0);
  });

  it('refuses a database with a different application_id with STORE_FOREIGN', () => {
    const path = join(temporaryDirectory(), 'other.sqlite');
    const other = new Database(path);
    other.pragma('application_id = 42');
    other.close();
    const before = readFileSync(path);
    expect(storeError(() => new SqliteAttachmentStore(path))).toMatchObject({ code: 'STORE_FOREIGN' });
    expect(readFileSync(path).equals(before)).toBe(true);
  });

  it('refuses a pin store written by a newer schema version, naming user_version', async () => {
    const path = join(temporaryDirectory(), 'pins.sqlite');
    await openStore(path).close();
    const newer = new Database(path);
    newer.pragma('user_version = 9');
    newer.close();
    const error = storeError(() => new SqliteAttachmentStore(path));
    expect(error).toMatchObject({ code: 'STORE_FOREIGN', field: 'user_version', value: 9 });
    expect(error.message).toContain('newer');
  });

  it('names the path when the directory does not exist (STORE_UNAVAILABLE)', () => {
    const path = join(temporaryDirectory(), 'missing', 'pins.sqlite');
    expect(storeError(() => new SqliteAttachmentStore(path))).toMatchObject({
      code: 'STORE_UNAVAILABLE',
      value: path,
    });
  });

  it('fails with STORE_CLOSED after close, and closing twice is harmless', async () => {
    const store = new SqliteAttachmentStore(join(temporaryDirectory(), 'pins.sqlite'));
    await store.close();
    await store.close();
    await expect(store.list({ pipelineId: 'p' })).rejects.toMatchObject({ code: 'STORE_CLOSED' });
  });

  it('validates its options, naming the field', () => {
    expect(storeError(() => new SqliteAttachmentStore(''))).toMatchObject({
      code: 'INVALID_OPTION',
      field: 'path',
    });
    expect(storeError(() => new SqliteAttachmentStore('x.sqlite', { busyTimeoutMs: -1 }))).toMatchObject({
      code: 'INVALID_OPTION',
      field: 'options.busyTimeoutMs',
    });
  });
});
