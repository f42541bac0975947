import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { ContentCache } from '../../src/cache/content-cache.js';
import { DerivedCache } from '../../src/cache/derived-cache.js';
import { type FetchContext, fetchAttachment } from '../../src/cache/fetch-attachment.js';

const target = { scope: 'pipeline', server: 'docs', uri: 'docs://guide.md' } as const;
const guide: ReadResourceResult = {
  contents: [{ uri: target.uri, mimeType: 'text/markdown', text: '# Guide' }],
};

/** A turn's fetch context over `cache`, with a server that counts its reads. */
function contextOver(cache: ContentCache, overrides: Partial<FetchContext> = {}) {
  const reads: string[] = [];
  const never = new AbortController().signal;
  const context: FetchContext = {
    actor: { pipelineId: 'support' },
    servers: {
      has: (server) => server === 'docs',
      isPerUser: () => false,
      readResource: async (_server, uri) => {
        reads.push(uri);
        return guide;
      },
    },
    cache,
    bypassCache: false,
    signal: never,
    deadline: never,
    deadlineAt: Number.POSITIVE_INFINITY,
    readTimeoutMs: 1000,
    derived: new DerivedCache(),
    ...overrides,
  };
  return { context, reads };
}

describe('fetchAttachment', () => {
  it('a fresh copy in the cache is answered at once, not as a promise: ready, a hit, nothing read', async () => {
    const cache = new ContentCache();
    const { context, reads } = contextOver(cache);
    const first = await fetchAttachment(target, context);
    expect(first).toMatchObject({ kind: 'ready', cache: 'miss' });
    expect(reads).toEqual([target.uri]);

    const warm = fetchAttachment(target, context);
    if (warm instanceof Promise || warm.kind !== 'ready' || first.kind !== 'ready')
      throw new Error('expected a ready attachment answered at once');
    expect(warm.cache).toBe('hit');
    // The same preparation as the read's: nothing converted again.
    expect(warm.composable).toBe(first.composable);
    expect(reads).toEqual([target.uri]);
  });

  it('a bypass, an unknown server or a refused media type still goes the way it always did', async () => {
    const cache = new ContentCache();
    const { context, reads } = contextOver(cache);
    await fetchAttachment(target, context);

    const bypass = fetchAttachment({ ...target, bypassCache: true }, context);
    expect(bypass).toBeInstanceOf(Promise);
    expect(await bypass).toMatchObject({ kind: 'ready', cache: 'bypass' });
    expect(reads).toEqual([target.uri, target.uri]);

    expect(await fetchAttachment({ ...target, server: 'gone' }, context)).toMatchObject({
      kind: 'failed',
      status: 'error',
      error: { code: 'UNKNOWN_SERVER' },
    });
    // A hit whose media type the binding refuses is denied at once, as a read would be.
    const refused = fetchAttachment(target, context, { limits: { mimeTypes: [['text/plain']] } });
    expect(refused).toMatchObject({ kind: 'failed', status: 'denied', cache: 'miss' });
  });
});
