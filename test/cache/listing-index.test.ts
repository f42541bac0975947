import { describe, expect, it, onTestFinished } from 'vitest';
import { startGitNexusFixture } from '../../fixtures/index.js';
import { type ListingFailure, ListingIndex } from '../../src/cache/listing-index.js';
import { ContextError } from '../../src/errors.js';
import { McpServerRegistry } from '../../src/mcp/mcp-server-registry.js';
import { startControlledServer } from '../support/controlled-server.js';

const actor = { pipelineId: 'support' };
const text = (uri: string) => [{ uri, mimeType: 'text/plain', text: uri }];

/** A real registry over a controlled server named `controlled` with `doc://a` and `doc://b`. */
function startListing(options: { ttlMs?: number; timeoutMs?: number } = {}) {
  const server = startControlledServer({ 'doc://a': text('doc://a'), 'doc://b': text('doc://b') });
  const servers = new McpServerRegistry({ mcpServers: { controlled: server.serverConfig } });
  const failures: ListingFailure[] = [];
  const index = new ListingIndex(servers, {
    ttlMs: options.ttlMs ?? 60_000,
    ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
    onFailure: (failure) => failures.push(failure),
  });
  onTestFinished(async () => {
    index.dispose();
    await servers.close();
    await server.close();
  });
  return { server, servers, index, failures };
}

describe('ListingIndex', () => {
  it('knows nothing before the first listing, then each listed resource by URI with its annotations', async () => {
    const { server, index } = startListing();
    server.setAnnotations('doc://a', { priority: 0.7, lastModified: '2025-01-01T00:00:00Z' });
    expect(index.known('controlled', 'doc://a', actor)).toBeUndefined();
    await index.settled();
    expect(index.known('controlled', 'doc://a', actor)).toEqual({
      uri: 'doc://a',
      name: 'doc://a',
      annotations: { priority: 0.7, lastModified: '2025-01-01T00:00:00Z' },
    });
    expect(index.known('controlled', 'doc://b', actor)).toEqual({ uri: 'doc://b', name: 'doc://b' });
    expect(index.known('controlled', 'doc://none', actor)).toBeUndefined();
    expect(server.listCount()).toBe(1);
  });

  it('one refresh per server at a time, whoever asks; none again while the listing is fresh', async () => {
    const { server, index } = startListing();
    const held = server.holdNextList();
    index.known('controlled', 'doc://a', actor);
    await held.started;
    index.known('controlled', 'doc://a', actor);
    index.known('controlled', 'doc://b', actor);
    held.release();
    await index.settled();
    index.known('controlled', 'doc://a', actor);
    await index.settled();
    expect(server.listCount()).toBe(1);
  });

  it('a listing older than ttlMs is refreshed when asked', async () => {
    const { server, index } = startListing({ ttlMs: 0 });
    index.known('controlled', 'doc://a', actor);
    await index.settled();
    index.known('controlled', 'doc://a', actor);
    await index.settled();
    expect(server.listCount()).toBe(2);
  });

  it('a refresh that answers the same listing leaves the generation; one that answers another moves it', async () => {
    const { server, index } = startListing({ ttlMs: 0 });
    index.known('controlled', 'doc://a', actor);
    await index.settled();
    const first = index.generation;
    index.known('controlled', 'doc://a', actor);
    await index.settled();
    expect(index.generation).toBe(first);
    server.setAnnotations('doc://a', { priority: 0.9 });
    index.known('controlled', 'doc://a', actor);
    await index.settled();
    expect(index.generation).toBe(first + 1);
    expect(server.listCount()).toBe(3);
    expect(index.known('controlled', 'doc://a', actor)?.annotations).toEqual({ priority: 0.9 });
  });

  it.each([
    [
      'resources-list-changed',
      (servers: McpServerRegistry, server: string) =>
        servers.emit('resources-list-changed', { type: 'resources-list-changed', server }),
    ],
    [
      'session-closed',
      (servers: McpServerRegistry, server: string) =>
        servers.emit('session-closed', { type: 'session-closed', server }),
    ],
  ] as const)('%s makes a fresh listing stale for that server alone', async (_name, emit) => {
    const { server, servers, index } = startListing();
    index.known('controlled', 'doc://a', actor);
    index.known('other', 'doc://a', actor);
    await index.settled();
    expect(server.listCount()).toBe(1);
    emit(servers, 'controlled');
    emit(servers, 'other');
    index.known('controlled', 'doc://a', actor);
    await index.settled();
    expect(server.listCount()).toBe(2);
  });

  it('a list_changed from the server while a refresh runs leaves the listing invalidated', async () => {
    const { server, servers, index } = startListing();
    const held = server.holdNextList();
    index.known('controlled', 'doc://a', actor);
    await held.started;
    const heard = new Promise((resolve) => servers.once('resources-list-changed', resolve));
    await server.notifyListChanged();
    await heard;
    held.release();
    await index.settled();
    index.known('controlled', 'doc://a', actor);
    await index.settled();
    expect(server.listCount()).toBe(2);
  });

  it('a failed refresh is reported, keeps the last known listing, and is not retried before the TTL', async () => {
    const { server, servers, index, failures } = startListing();
    index.known('controlled', 'doc://a', actor);
    await index.settled();
    server.breakLists();
    servers.emit('resources-list-changed', { type: 'resources-list-changed', server: 'controlled' });
    expect(index.known('controlled', 'doc://a', actor)).toEqual({ uri: 'doc://a', name: 'doc://a' });
    await index.settled();
    expect(failures).toHaveLength(1);
    expect(failures[0]?.server).toBe('controlled');
    expect(ContextError.isInstance(failures[0]?.error)).toBe(true);
    expect(failures[0]?.error.message).toContain('the listing is broken');
    expect(index.known('controlled', 'doc://a', actor)).toEqual({ uri: 'doc://a', name: 'doc://a' });
    await index.settled();
    expect(server.listCount()).toBe(2);
    expect(failures).toHaveLength(1);
  });

  it('timeoutMs bounds a refresh', async () => {
    const { server, index, failures } = startListing({ timeoutMs: 20 });
    const held = server.holdNextList();
    onTestFinished(() => held.release());
    index.known('controlled', 'doc://a', actor);
    await index.settled();
    expect(failures.map((failure) => failure.error.code)).toEqual(['REQUEST_TIMEOUT']);
  });

  it('a refresh that fails after dispose is not reported', async () => {
    const { server, index, failures } = startListing();
    server.breakLists();
    const held = server.holdNextList();
    index.known('controlled', 'doc://a', actor);
    await held.started;
    const settled = index.settled();
    index.dispose();
    held.release();
    await settled;
    expect(server.listCount()).toBe(1);
    expect(failures).toEqual([]);
  });

  it('after dispose, notifications no longer reach it', async () => {
    const { servers, index } = startListing();
    index.dispose();
    expect(servers.listenerCount('resources-list-changed')).toBe(0);
    expect(servers.listenerCount('session-closed')).toBe(0);
  });

  it('a throw that is not a ContextError is reported as INTERNAL_ERROR naming the server', async () => {
    const failures: ListingFailure[] = [];
    const broken = Object.assign(new McpServerRegistry({ mcpServers: {} }), {
      listResources: async () => Promise.reject(new TypeError('not a listing')),
    });
    const index = new ListingIndex(broken, { ttlMs: 60_000, onFailure: (failure) => failures.push(failure) });
    index.known('nowhere', 'doc://a', actor);
    await index.settled();
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({
      server: 'nowhere',
      error: {
        code: 'INTERNAL_ERROR',
        message: 'listing server "nowhere": TypeError: not a listing',
        server: 'nowhere',
      },
    });
    expect(failures[0]?.error.cause).toBeInstanceOf(TypeError);
  });
});

describe('ListingIndex edges', () => {
  it('lists every page of a paginated listing', async () => {
    const fixture = await startGitNexusFixture({ transport: 'memory', pageSize: 2, extraResources: 5 });
    const servers = new McpServerRegistry({ mcpServers: { gitnexus: fixture.serverConfig } });
    const index = new ListingIndex(servers, { ttlMs: 60_000 });
    onTestFinished(async () => {
      index.dispose();
      await servers.close();
      await fixture.close();
    });
    index.known('gitnexus', 'gitnexus://note/005', actor);
    await index.settled();
    expect(index.known('gitnexus', 'gitnexus://note/005', actor)?.uri).toBe('gitnexus://note/005');
  });

  it('a notification for a server it never listed is ignored', () => {
    const { servers } = startListing();
    expect(() => {
      servers.emit('resources-list-changed', { type: 'resources-list-changed', server: 'unasked' });
      servers.emit('session-closed', { type: 'session-closed', server: 'unasked' });
    }).not.toThrow();
  });

  it('without onFailure, a failed refresh still settles', async () => {
    const server = startControlledServer({ 'doc://a': text('doc://a') });
    const servers = new McpServerRegistry({ mcpServers: { controlled: server.serverConfig } });
    const index = new ListingIndex(servers, { ttlMs: 60_000 });
    onTestFinished(async () => {
      index.dispose();
      await servers.close();
      await server.close();
    });
    server.breakLists();
    index.known('controlled', 'doc://a', actor);
    await expect(index.settled()).resolves.toBeUndefined();
    expect(server.listCount()).toBe(1);
  });

  it('dispose forgets what was listed', async () => {
    const { index, server } = startListing();
    index.known('controlled', 'doc://a', actor);
    await index.settled();
    index.dispose();
    server.breakLists();
    expect(index.known('controlled', 'doc://a', actor)).toBeUndefined();
    await index.settled();
  });
});

describe('ListingIndex for kept turns: generation and keepFresh', () => {
  it('generation moves when a listing arrives or a listed server is invalidated, and not otherwise', async () => {
    const { server, servers, index } = startListing();
    expect(index.generation).toBe(0);
    const held = server.holdNextList();
    index.known('controlled', 'doc://a', actor);
    await held.started;
    // Asked for, not arrived: what `known` answers has not changed yet.
    expect(index.generation).toBe(0);
    held.release();
    await index.settled();
    expect(index.generation).toBe(1);
    index.known('controlled', 'doc://a', actor);
    await index.settled();
    expect(index.generation).toBe(1);

    servers.emit('resources-list-changed', { type: 'resources-list-changed', server: 'controlled' });
    expect(index.generation).toBe(2);
    servers.emit('session-closed', { type: 'session-closed', server: 'controlled' });
    expect(index.generation).toBe(3);
    // A server never listed has nothing to invalidate.
    servers.emit('resources-list-changed', { type: 'resources-list-changed', server: 'unasked' });
    expect(index.generation).toBe(3);

    // A failed refresh keeps the last known listing: its answers stand.
    server.breakLists();
    index.known('controlled', 'doc://a', actor);
    await index.settled();
    expect(server.listCount()).toBe(2);
    expect(index.generation).toBe(3);
  });

  it('keepFresh starts the refresh known would, without a lookup: none while fresh or while one runs', async () => {
    const { server, servers, index } = startListing();
    const held = server.holdNextList();
    // Missing: refreshed.
    index.keepFresh('controlled', actor);
    await held.started;
    index.keepFresh('controlled', actor);
    held.release();
    await index.settled();
    expect(server.listCount()).toBe(1);
    expect(index.known('controlled', 'doc://a', actor)).toEqual({ uri: 'doc://a', name: 'doc://a' });
    // Fresh: not refreshed.
    index.keepFresh('controlled', actor);
    await index.settled();
    expect(server.listCount()).toBe(1);
    // Invalidated: refreshed.
    servers.emit('resources-list-changed', { type: 'resources-list-changed', server: 'controlled' });
    index.keepFresh('controlled', actor);
    await index.settled();
    expect(server.listCount()).toBe(2);
  });

  it('keepFresh refreshes a listing past its TTL', async () => {
    const { server, index } = startListing({ ttlMs: 0 });
    index.keepFresh('controlled', actor);
    await index.settled();
    index.keepFresh('controlled', actor);
    await index.settled();
    expect(server.listCount()).toBe(2);
  });
});
