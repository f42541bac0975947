import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, onTestFinished } from 'vitest';
import { type ModernServerOptions, startModernServer } from '../../fixtures/modern/start-modern-server.js';
import { ListingIndex } from '../../src/cache/listing-index.js';
import { collectPages, type Page } from '../../src/mcp/collect-pages.js';
import { McpServerRegistry } from '../../src/mcp/mcp-server-registry.js';

// Issue 34.2: listings carry ttlMs / cacheScope on 2026-07-28 too; each page its own, the whole
// cached as its narrowest page allows.
const actor = { pipelineId: 'chat' };

async function modernListing(listHint: ModernServerOptions['listHint'], maxTtlMs?: number) {
  const server = await startModernServer({
    eras: 'modern-only',
    resources: [{ uri: 'note://a', name: 'a', text: 'alpha' }],
    ...(listHint !== undefined && { listHint }),
  });
  onTestFinished(() => server.close());
  const servers = new McpServerRegistry({
    reconnect: false,
    mcpServers: { modern: { type: 'http', url: server.url } },
  });
  onTestFinished(() => servers.close());
  const index = new ListingIndex(servers, { ttlMs: 60_000, ...(maxTtlMs !== undefined && { maxTtlMs }) });
  onTestFinished(() => index.dispose());
  const lists = () => server.posts.filter((post) => post.method === 'resources/list').length;
  return { servers, index, lists };
}

describe('listing hints', () => {
  it('a whole listing takes its narrowest page’s hints: the shortest ttlMs, private if any page is', async () => {
    const pages: Page<string>[] = [
      { items: ['a'], nextCursor: '1', hints: { ttlMs: 500, cacheScope: 'public' } },
      { items: ['b'], nextCursor: '2' },
      { items: ['c'], hints: { ttlMs: 200, cacheScope: 'private' } },
    ];
    const options = { server: 's', operation: 'resources/list', maxPages: 10, maxItems: 10 };
    const fetchPage = async (cursor: string | undefined) => pages[Number(cursor ?? 0)] as Page<string>;
    expect(await collectPages(fetchPage, options)).toEqual({
      items: ['a', 'b', 'c'],
      hints: { ttlMs: 200, cacheScope: 'private' },
    });
    const unhinted = async (cursor: string | undefined) => ({ items: [cursor ?? '0'] });
    expect(await collectPages(unhinted, options)).toEqual({ items: ['0'], hints: undefined });
  });

  it("the registry's listing says the server's hints", async () => {
    const { servers } = await modernListing({ ttlMs: 1_500, cacheScope: 'public' });
    expect(await servers.listResources('modern', { all: true })).toMatchObject({
      resources: [{ uri: 'note://a' }],
      ttlMs: 1_500,
      cacheScope: 'public',
    });
  });

  it('the listing index refreshes a listing once its own ttlMs has passed, and an identical answer changes nothing', async () => {
    const { index, lists } = await modernListing({ ttlMs: 300, cacheScope: 'public' });
    index.known('modern', 'note://a', actor);
    await index.settled();
    const generation = index.generation;
    expect(index.known('modern', 'note://a', actor)).toMatchObject({ uri: 'note://a', name: 'a' });
    await index.settled();
    expect(lists()).toBe(1);

    await sleep(350);
    index.known('modern', 'note://a', actor);
    await index.settled();
    expect(lists()).toBe(2);
    expect(index.generation).toBe(generation);
  });

  it("a private listing is each principal's own: another principal's lookup never answers from it", async () => {
    const { index, lists } = await modernListing({ ttlMs: 60_000, cacheScope: 'private' });
    index.known('modern', 'note://a', actor, 'ada');
    await index.settled();
    expect(index.known('modern', 'note://a', actor, 'ada')).toMatchObject({ uri: 'note://a' });

    // Bob has no listing of his own yet: nothing, not Ada's; his own is asked for.
    expect(index.known('modern', 'note://a', actor, 'bob')).toBeUndefined();
    await index.settled();
    expect(index.known('modern', 'note://a', actor, 'bob')).toMatchObject({ uri: 'note://a' });
    expect(index.known('modern', 'note://a', actor)).toBeUndefined();
    await index.settled();
    expect(lists()).toBe(3);
    // Each fresh for its own ttlMs: asked again, none lists.
    for (const principal of ['ada', 'bob', undefined]) index.known('modern', 'note://a', actor, principal);
    await index.settled();
    expect(lists()).toBe(3);
  });

  it('the v2 default (ttlMs 0) is asked again by every lookup; a long hint is capped by maxTtlMs', async () => {
    const zero = await modernListing(undefined);
    zero.index.known('modern', 'note://a', actor);
    await zero.index.settled();
    zero.index.known('modern', 'note://a', actor);
    await zero.index.settled();
    expect(zero.lists()).toBe(2);

    const capped = await modernListing({ ttlMs: 86_400_000, cacheScope: 'public' }, 200);
    capped.index.known('modern', 'note://a', actor);
    await capped.index.settled();
    capped.index.known('modern', 'note://a', actor);
    await capped.index.settled();
    expect(capped.lists()).toBe(1);
    await sleep(250);
    capped.index.known('modern', 'note://a', actor);
    await capped.index.settled();
    expect(capped.lists()).toBe(2);
  });
});
