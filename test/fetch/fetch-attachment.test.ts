import { describe, expect, it, onTestFinished } from 'vitest';
import { type CachedContent, ContentCache } from '../../src/cache/content-cache.js';
import { DerivedCache } from '../../src/cache/derived-cache.js';
import type { SharedTier } from '../../src/cache/shared-tier.js';
import { ConverterRegistry } from '../../src/convert/converter-registry.js';
import { plainTextConverter } from '../../src/convert/converters/plain-text-converter.js';
import { ContextError } from '../../src/errors.js';
import { type FetchContext, fetchAttachment } from '../../src/fetch/fetch-attachment.js';
import { McpServerRegistry, type ReadOptions } from '../../src/mcp/mcp-server-registry.js';
import type { Telemetry } from '../../src/trace/telemetry.js';
import { startControlledServer } from '../support/controlled-server.js';
import { countingRegistry } from '../support/counting-registry.js';

const uri = 'doc://a';
const target = { scope: 'pipeline', server: 'controlled', uri } as const;
const never = new AbortController().signal;

/**
 * A real registry over a controlled server; the fetch step sees it through a view that records
 * each read's options and says whether the server is per-user.
 */
function start(options: { perUser?: boolean; read?: () => Promise<never> } = {}) {
  const server = startControlledServer({ [uri]: [{ uri, mimeType: 'text/plain', text: 'version 1' }] });
  const registry = new McpServerRegistry({ mcpServers: { controlled: server.serverConfig } });
  onTestFinished(async () => {
    await registry.close();
    await server.close();
  });
  const reads: ReadOptions[] = [];
  const servers: FetchContext['servers'] = {
    has: (name) => registry.has(name),
    isPerUser: () => options.perUser === true,
    identityOf: (name) => registry.identityOf(name),
    readResource: (name, resource, readOptions = {}) => {
      reads.push(readOptions);
      return options.read ? options.read() : registry.readResource(name, resource, readOptions);
    },
  };
  const context = (overrides: Partial<FetchContext> = {}): FetchContext => ({
    actor: { pipelineId: 'support' },
    servers,
    cache: undefined,
    bypassCache: false,
    until: { signal: never, deadline: never },
    deadlineAt: Number.POSITIVE_INFINITY,
    readTimeoutMs: 10_000,
    ...overrides,
  });
  // How the cache keys this registry's `controlled` (what the fetch step keys its reads by).
  const key = { server: 'controlled', identity: String(registry.identityOf('controlled')), uri };
  return { server, context, reads, key };
}

const textOf = (fate: Awaited<ReturnType<typeof fetchAttachment>>) =>
  fate.kind === 'ready'
    ? fate.converted.sections.map((section) => ('text' in section ? section.text : ''))
    : [];

describe('fetchAttachment', () => {
  it('without a cache: read from the server every time, as a bypass, with its own timeout and the actor', async () => {
    const { server, context, reads } = start();
    const fate = await fetchAttachment(target, context({ readTimeoutMs: 1234 }));
    expect(fate).toMatchObject({ kind: 'ready', cache: 'bypass' });
    expect(textOf(fate)).toEqual(['version 1']);
    expect(fate).not.toHaveProperty('sharedCache');
    expect(fate).not.toHaveProperty('staleError');
    await fetchAttachment(target, context());
    expect(server.readCount(uri)).toBe(2);
    expect(reads[0]).toEqual({ timeoutMs: 1234, actor: { pipelineId: 'support' } });
  });

  it('with a cache: a miss, then a hit; the turn principal goes with the read', async () => {
    const { server, context, reads } = start();
    const cache = new ContentCache();
    const first = await fetchAttachment(target, context({ cache, principal: 'alice' }));
    const second = await fetchAttachment(target, context({ cache, principal: 'bob' }));
    expect([first.cache, second.cache]).toEqual(['miss', 'hit']);
    expect(textOf(second)).toEqual(['version 1']);
    expect(server.readCount(uri)).toBe(1);
    expect(reads).toEqual([{ timeoutMs: 10_000, actor: { pipelineId: 'support' }, principal: 'alice' }]);
  });

  it("a per-user server's content is kept per principal", async () => {
    const { server, context } = start({ perUser: true });
    const cache = new ContentCache();
    await fetchAttachment(target, context({ cache, principal: 'alice' }));
    const bob = await fetchAttachment(target, context({ cache, principal: 'bob' }));
    const alice = await fetchAttachment(target, context({ cache, principal: 'alice' }));
    expect([bob.cache, alice.cache]).toEqual(['miss', 'hit']);
    expect(server.readCount(uri)).toBe(2);
  });

  it('a bypass, for the turn or for the attachment, reads from the server and says so', async () => {
    const { server, context } = start();
    const cache = new ContentCache();
    await fetchAttachment(target, context({ cache }));
    expect((await fetchAttachment(target, context({ cache, bypassCache: true }))).cache).toBe('bypass');
    expect((await fetchAttachment({ ...target, bypassCache: true }, context({ cache }))).cache).toBe(
      'bypass',
    );
    expect((await fetchAttachment({ ...target, bypassCache: false }, context({ cache }))).cache).toBe('hit');
    expect(server.readCount(uri)).toBe(3);
  });

  it('an unknown server is an error; its cache status says whether a cache would have been asked', async () => {
    const { context } = start();
    const cache = new ContentCache();
    const unknown = { ...target, server: 'nowhere' };
    const fate = await fetchAttachment(unknown, context({ cache }));
    expect(fate).toMatchObject({
      kind: 'failed',
      status: 'error',
      cache: 'miss',
      error: {
        code: 'UNKNOWN_SERVER',
        message: 'no MCP server named "nowhere" is configured',
        server: 'nowhere',
      },
    });
    expect((await fetchAttachment(unknown, context())).cache).toBe('bypass');
    expect((await fetchAttachment(unknown, context({ cache, bypassCache: true }))).cache).toBe('bypass');
    expect((await fetchAttachment({ ...unknown, bypassCache: true }, context({ cache }))).cache).toBe(
      'bypass',
    );
  });

  it('a fresh read that arrives past the deadline is not converted; a cache hit still is', async () => {
    const { context } = start();
    const cache = new ContentCache();
    const late = await fetchAttachment(target, context({ cache, deadlineAt: 0 }));
    expect(late).toMatchObject({
      kind: 'failed',
      status: 'timeout',
      cache: 'miss',
      error: {
        code: 'TURN_DEADLINE',
        message: `${uri} arrived after the turn deadline and was not converted`,
        server: 'controlled',
      },
    });
    const hit = await fetchAttachment(target, context({ cache, deadlineAt: 0 }));
    expect(hit).toMatchObject({ kind: 'ready', cache: 'hit' });
  });

  it('aborted by the host: ABORTED, an error; by the turn deadline: TURN_DEADLINE, a timeout', async () => {
    const { context } = start();
    const host = new AbortController();
    host.abort(new Error('host gave up'));
    const aborted = await fetchAttachment(
      target,
      context({ until: { signal: host.signal, deadline: never } }),
    );
    expect(aborted).toMatchObject({
      kind: 'failed',
      status: 'error',
      cache: 'bypass',
      error: { code: 'ABORTED', message: `reading ${uri} was aborted`, server: 'controlled' },
    });
    const timedOut = await fetchAttachment(
      target,
      context({ until: { signal: host.signal, deadline: host.signal } }),
    );
    expect(timedOut).toMatchObject({
      kind: 'failed',
      status: 'timeout',
      error: {
        code: 'TURN_DEADLINE',
        message: `reading ${uri} did not finish before the turn deadline`,
        server: 'controlled',
      },
    });
    expect(timedOut.kind === 'failed' && (timedOut.error.cause as ContextError).code).toBe('ABORTED');
  });

  it('a read timeout is a timeout; a denial is denied; any other failure an error', async () => {
    const { server, context } = start();
    server.hang(uri);
    expect(await fetchAttachment(target, context({ readTimeoutMs: 20 }))).toMatchObject({
      kind: 'failed',
      status: 'timeout',
      error: { code: 'READ_TIMEOUT' },
    });
    const denied = start({ read: async () => Promise.reject(new ContextError('POLICY_DENIED', 'no')) });
    expect(await fetchAttachment(target, denied.context())).toMatchObject({
      status: 'denied',
      error: { code: 'POLICY_DENIED' },
    });
    const failing = start({ read: async () => Promise.reject(new ContextError('PROTOCOL_ERROR', 'bad')) });
    expect(await fetchAttachment(target, failing.context())).toMatchObject({
      status: 'error',
      error: { code: 'PROTOCOL_ERROR' },
    });
  });

  it('a throw that is not a ContextError is an INTERNAL_ERROR naming the URI, with the throw as cause', async () => {
    const thrown = new TypeError('boom');
    const { context } = start({ read: async () => Promise.reject(thrown) });
    const fate = await fetchAttachment(target, context());
    expect(fate).toMatchObject({
      kind: 'failed',
      status: 'error',
      error: { code: 'INTERNAL_ERROR', message: `${uri}: TypeError: boom`, server: 'controlled' },
    });
    expect(fate.kind === 'failed' && fate.error.cause).toBe(thrown);
  });

  it('stale-on-error: the copy is used and the failure is kept beside it', async () => {
    const { server, context } = start();
    const cache = new ContentCache({ ttlMs: 0 });
    await fetchAttachment(target, context({ cache }));
    server.hang(uri);
    const fate = await fetchAttachment(target, context({ cache, readTimeoutMs: 20 }));
    expect(fate).toMatchObject({ kind: 'ready', cache: 'stale', staleError: { code: 'READ_TIMEOUT' } });
    expect(textOf(fate)).toEqual(['version 1']);
    const internal = start({ read: async () => Promise.reject(new Error('broken')) });
    await cache.read(internal.key, async () => ({ contents: [] }));
    const wrapped = await fetchAttachment(target, internal.context({ cache }));
    expect(wrapped).toMatchObject({
      cache: 'stale',
      staleError: { code: 'INTERNAL_ERROR', message: `${uri}: Error: broken` },
    });
  });

  it('with a shared tier: how the fleet served the miss', async () => {
    const { context } = start();
    const tier: SharedTier = {
      lookup: async () => ({ kind: 'alone', reason: 'wait-timeout' }),
      publish: () => {},
      onInvalidation: () => () => {},
    };
    const fate = await fetchAttachment(target, context({ cache: new ContentCache({ shared: tier }) }));
    expect(fate).toMatchObject({ kind: 'ready', cache: 'miss', sharedCache: 'wait-timeout' });
  });

  it('the binding limits apply to the read; a read they cut is not kept in the derived cache', async () => {
    const { server, context } = start();
    server.setText(uri, 'x'.repeat(100));
    const derived = new DerivedCache();
    const cache = new ContentCache();
    const cut = await fetchAttachment(target, context({ cache, derived }), {
      limits: { maxBytes: 10, mimeTypes: [] },
    });
    expect(textOf(cut)[0]).toHaveLength(10);
    expect(derived.bytesHeld).toBe(0);
    const whole = await fetchAttachment(target, context({ cache, derived }), { limits: { mimeTypes: [] } });
    expect(textOf(whole)).toEqual(['x'.repeat(100)]);
    expect(derived.bytesHeld).toBeGreaterThan(0);
  });

  it('limits that refuse the media type make it an error', async () => {
    const { context } = start();
    const fate = await fetchAttachment(target, context(), { limits: { mimeTypes: [['image/png']] } });
    expect(fate).toMatchObject({ kind: 'failed', status: 'denied' });
  });

  it('verify sees the read before conversion; its throw makes the attachment an error', async () => {
    const { context } = start();
    const seen: unknown[] = [];
    const fine = await fetchAttachment(target, context(), {
      verify: (read) => void seen.push(read.contents),
    });
    expect(fine.kind).toBe('ready');
    expect(seen).toEqual([[{ uri, mimeType: 'text/plain', text: 'version 1' }]]);
    const refused = await fetchAttachment(target, context(), {
      verify: () => {
        throw new ContextError('SKILL_INVALID', 'digest mismatch');
      },
    });
    expect(refused).toMatchObject({ kind: 'failed', status: 'error', error: { code: 'SKILL_INVALID' } });
  });
});

describe('fetchAttachment on a warm turn', () => {
  it('a fresh copy in the cache is answered at once, not as a promise: ready, a hit, nothing read', async () => {
    const { server, context } = start();
    const warmContext = context({ cache: new ContentCache(), derived: new DerivedCache() });
    const first = await fetchAttachment(target, warmContext);
    expect(first).toMatchObject({ kind: 'ready', cache: 'miss' });
    expect(server.readCount(uri)).toBe(1);

    const warm = fetchAttachment(target, warmContext);
    if (warm instanceof Promise || warm.kind !== 'ready' || first.kind !== 'ready')
      throw new Error('expected a ready attachment answered at once');
    expect(warm.cache).toBe('hit');
    // The same preparation as the read's: nothing converted again.
    expect(warm.composable).toBe(first.composable);
    expect(server.readCount(uri)).toBe(1);
  });

  it("the content of each hit answered at once is collected in the context's hits; a miss or a bypass adds none", async () => {
    const { context, key } = start();
    const cache = new ContentCache();
    const hits: CachedContent[] = [];
    const collecting = context({ cache, derived: new DerivedCache(), hits });
    await fetchAttachment(target, collecting);
    expect(hits).toEqual([]);
    fetchAttachment(target, collecting);
    fetchAttachment(target, collecting);
    const held = cache.peek(key)?.content;
    expect(held).toBeDefined();
    expect(hits).toHaveLength(2);
    expect(hits[0]).toBe(held);
    expect(hits[1]).toBe(held);
    await fetchAttachment(target, context({ cache, bypassCache: true, hits }));
    expect(hits).toHaveLength(2);
  });

  it('a hit whose conversion was made before is one fate every turn: the same object, durationMs 0', async () => {
    const { server, context } = start();
    const cache = new ContentCache();
    const warmContext = context({ cache, derived: new DerivedCache() });
    const first = await fetchAttachment(target, warmContext);
    const hits = [fetchAttachment(target, warmContext), fetchAttachment(target, warmContext)];
    if (first.kind !== 'ready') throw new Error('expected a ready attachment');
    expect(hits[0]).toBe(hits[1]);
    expect(hits[0]).toEqual({
      kind: 'ready',
      composable: first.composable,
      converted: first.converted,
      cache: 'hit',
      durationMs: 0,
    });
    // New content is a new conversion: measured, then kept in its turn.
    server.setText(uri, 'version 2');
    cache.invalidateResource('controlled', uri);
    const changed = await fetchAttachment(target, warmContext);
    expect(textOf(changed)).toEqual(['version 2']);
    expect(changed).toMatchObject({ cache: 'miss' });
    expect(changed).not.toBe(hits[0]);
    const changedHit = fetchAttachment(target, warmContext);
    expect(changedHit).toMatchObject({ cache: 'hit', durationMs: 0 });
    expect(changedHit).not.toBe(hits[0]);
    expect(textOf(await changedHit)).toEqual(['version 2']);
  });

  it('a read of unchanged content is still a read: its own fate, a miss, not the kept hit', async () => {
    const { server, context } = start();
    const expiring = context({ cache: new ContentCache({ ttlMs: 0 }), derived: new DerivedCache() });
    const reads = [await fetchAttachment(target, expiring), await fetchAttachment(target, expiring)];
    expect(server.readCount(uri)).toBe(2);
    expect(reads.map((fate) => fate.cache)).toEqual(['miss', 'miss']);
    expect(reads[0]).not.toBe(reads[1]);
  });

  it('nothing is kept without a derived cache, or for a read the binding cut', async () => {
    const { server, context } = start();
    server.setText(uri, 'x'.repeat(100));
    const plain = context({ cache: new ContentCache() });
    await fetchAttachment(target, plain);
    expect(fetchAttachment(target, plain)).not.toBe(fetchAttachment(target, plain));

    const derivedContext = context({ cache: new ContentCache(), derived: new DerivedCache() });
    const limits = { limits: { maxBytes: 10, mimeTypes: [] } };
    await fetchAttachment(target, derivedContext, limits);
    const cut = fetchAttachment(target, derivedContext, limits);
    const cutAgain = fetchAttachment(target, derivedContext, limits);
    expect(cut).not.toBe(cutAgain);
    expect(textOf(await cutAgain)).toEqual(['x'.repeat(10)]);
  });

  it('a bypass, an unknown server or a refused media type still goes the way it always did', async () => {
    const { server, context } = start();
    const warmContext = context({ cache: new ContentCache(), derived: new DerivedCache() });
    await fetchAttachment(target, warmContext);

    const bypass = fetchAttachment({ ...target, bypassCache: true }, warmContext);
    expect(bypass).toBeInstanceOf(Promise);
    expect(await bypass).toMatchObject({ kind: 'ready', cache: 'bypass' });
    expect(server.readCount(uri)).toBe(2);

    expect(await fetchAttachment({ ...target, server: 'gone' }, warmContext)).toMatchObject({
      kind: 'failed',
      status: 'error',
      error: { code: 'UNKNOWN_SERVER' },
    });
    // A hit whose media type the binding refuses is denied at once, as a read would be.
    // The cache served it: the trace says hit.
    const refused = fetchAttachment(target, warmContext, { limits: { mimeTypes: [['text/markdown']] } });
    expect(refused).toMatchObject({ kind: 'failed', status: 'denied', cache: 'hit' });
  });

  it('a server gone from the registry is not answered from the cache', async () => {
    const { server, context } = start();
    const warmContext = context({ cache: new ContentCache() });
    await fetchAttachment(target, warmContext);
    const gone = { ...warmContext, servers: { ...warmContext.servers, has: () => false } };
    expect(await fetchAttachment(target, gone)).toMatchObject({
      kind: 'failed',
      status: 'error',
      cache: 'miss',
      error: { code: 'UNKNOWN_SERVER', server: 'controlled' },
    });
    expect(server.readCount(uri)).toBe(1);
  });
});

describe('fetchAttachment with telemetry', () => {
  /** Records the spans started, in order, and the errors recorded on them. */
  function recordingTelemetry() {
    const spans: { name: string; errors: string[]; ended: boolean }[] = [];
    const telemetry: Telemetry = {
      startSpan: (name) => {
        const span = { name, errors: [] as string[], ended: false };
        spans.push(span);
        return {
          setAttributes: () => {},
          recordError: (error) => void span.errors.push((error as ContextError).code),
          end: () => {
            span.ended = true;
          },
        };
      },
      withSpan: (_span, run) => run(),
      traceContext: () => undefined,
      recordRequest: () => {},
      recordTurn: () => {},
      recordInvalidation: () => {},
    };
    return { telemetry, spans };
  }

  it('the fetch and the convert step each get a span; a hit goes the same way, converted past the deadline', async () => {
    const { server, context } = start();
    const { telemetry, spans } = recordingTelemetry();
    const cache = new ContentCache();
    const first = await fetchAttachment(target, context({ cache, telemetry }));
    expect(first).toMatchObject({ kind: 'ready', cache: 'miss' });
    expect(textOf(first)).toEqual(['version 1']);
    expect(spans).toEqual([
      { name: 'mcp-context fetch', errors: [], ended: true },
      { name: 'mcp-context convert', errors: [], ended: true },
    ]);
    // Past the deadline a hit is still converted: only what was read fresh is refused. With
    // telemetry as without, a hit is answered at once (telemetry changes no path).
    const hit = fetchAttachment(target, context({ cache, telemetry, deadlineAt: 0 }));
    expect(hit).not.toBeInstanceOf(Promise);
    expect(await hit).toMatchObject({ kind: 'ready', cache: 'hit' });
    expect(spans.map((span) => span.name)).toEqual([
      'mcp-context fetch',
      'mcp-context convert',
      'mcp-context fetch',
      'mcp-context convert',
    ]);
    expect(server.readCount(uri)).toBe(1);
  });

  it('a hit the binding refuses is traced as a hit, its failure recorded on the convert span', async () => {
    const { context } = start();
    const { telemetry, spans } = recordingTelemetry();
    const cache = new ContentCache();
    await fetchAttachment(target, context({ cache, telemetry }));
    const refused = await fetchAttachment(target, context({ cache, telemetry }), {
      limits: { mimeTypes: [['text/markdown']] },
    });
    expect(refused).toMatchObject({ kind: 'failed', status: 'denied', cache: 'hit' });
    expect(spans.at(-1)).toEqual({ name: 'mcp-context convert', errors: ['POLICY_DENIED'], ended: true });
  });
});

describe('fetchAttachment durations', () => {
  it('durationMs is the time the fetch took, for a read, a hit and a failure', async () => {
    const { context } = start();
    const cache = new ContentCache();
    const timed = async (run: () => ReturnType<typeof fetchAttachment>) => {
      const before = performance.now();
      const fate = await run();
      return { fate, elapsed: performance.now() - before };
    };
    const runs = [
      await timed(() => fetchAttachment(target, context({ cache }))),
      await timed(() => fetchAttachment(target, context({ cache }))),
      await timed(() => fetchAttachment({ ...target, server: 'nowhere' }, context({ cache }))),
    ];
    expect(runs.map(({ fate }) => `${fate.kind} ${fate.cache}`)).toEqual([
      'ready miss',
      'ready hit',
      'failed miss',
    ]);
    for (const { fate, elapsed } of runs) {
      expect(fate.durationMs).toBeGreaterThanOrEqual(0);
      expect(fate.durationMs).toBeLessThanOrEqual(elapsed);
    }
  });
});

describe('fetchAttachment and a host abort', () => {
  it('nothing is converted once the host has aborted, wherever the abort falls after the read', async () => {
    const { context } = start();
    // The abort lands 0, 1, 2 … microtask hops after the server's answer arrives: before,
    // between and after the steps that carry the read back to fetchAttachment.
    for (let hops = 0; hops < 12; hops += 1) {
      const host = new AbortController();
      let convertedAfterAbort = false;
      const converters = new ConverterRegistry().register({
        ...plainTextConverter,
        name: 'watched-plain-text',
        convert: (input) => {
          if (host.signal.aborted) convertedAfterAbort = true;
          return plainTextConverter.convert(input);
        },
      });
      const base = context({ until: { signal: host.signal, deadline: never }, converters });
      const servers: FetchContext['servers'] = {
        ...base.servers,
        readResource: async (...args) => {
          const read = await base.servers.readResource(...args);
          let hop = 0;
          const later = () =>
            hop++ === hops ? host.abort(new Error('host gave up')) : queueMicrotask(later);
          queueMicrotask(later);
          return read;
        },
      };
      const fate = await fetchAttachment(target, { ...base, servers });
      expect(convertedAfterAbort, `abort ${hops} hops after the answer`).toBe(false);
      if (fate.kind === 'failed') expect(fate.error.code).toBe('ABORTED');
    }
  });
});

describe('fetchAttachment: what a warm turn keeps is checked against the turn', () => {
  // Each test names its own target object: the peek request and the preparation are kept per
  // (frozen) target and per cached read, so a check of them must not meet what an earlier test kept.
  it("a per-user server's warm peek is made for the turn's principal: bob is not served alice's copy", async () => {
    const { server, context } = start({ perUser: true });
    const cache = new ContentCache();
    // Frozen, as a stored pin is: its peek requests are kept.
    const mine = Object.freeze({ ...target });
    const alice = await fetchAttachment(mine, context({ cache, principal: 'alice' }));
    const bob = await fetchAttachment(mine, context({ cache, principal: 'bob' }));
    const aliceAgain = await fetchAttachment(mine, context({ cache, principal: 'alice' }));
    expect([alice.cache, bob.cache, aliceAgain.cache]).toEqual(['miss', 'miss', 'hit']);
    expect(server.readCount(uri)).toBe(2);
    // The kept request names the target: alice's next warm peek is a hit, answered at once.
    const warm = fetchAttachment(mine, context({ cache, principal: 'alice' }));
    expect(warm).not.toBeInstanceOf(Promise);
    expect(warm).toMatchObject({ kind: 'ready', cache: 'hit' });
  });

  it("without a derived cache, the turn's converters convert the read", async () => {
    const { context } = start();
    const { registry: converters, calls } = countingRegistry('text/plain');
    const fate = await fetchAttachment({ ...target }, context({ cache: new ContentCache(), converters }));
    expect(textOf(fate)).toEqual(['version 1']);
    expect(calls).toHaveLength(1);
  });

  it("a cached read prepared again with other converters, or another derived cache, is prepared with the turn's", async () => {
    const { server, context } = start();
    const cache = new ContentCache();
    const derived = new DerivedCache();
    const { registry: others, calls } = countingRegistry('text/plain');
    const mine = { ...target };
    // A miss, then a hit: the hit's cached read keeps its preparation.
    await fetchAttachment(mine, context({ cache, derived }));
    expect((await fetchAttachment(mine, context({ cache, derived }))).cache).toBe('hit');
    const another = new DerivedCache();
    const inAnother = await fetchAttachment(mine, context({ cache, derived: another }));
    expect(inAnother.cache).toBe('hit');
    expect(another.bytesHeld).toBeGreaterThan(0);
    const withOthers = await fetchAttachment(mine, context({ cache, derived: another, converters: others }));
    expect(withOthers.cache).toBe('hit');
    expect(calls).toHaveLength(1);
    expect(server.readCount(uri)).toBe(1);
  });
});
