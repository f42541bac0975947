import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { OrdinaryEncoder } from '../../src/budget/encode-ordinary.js';
import { createTiktokenTokenizer } from '../../src/budget/tiktoken-tokenizer.js';
import { ConverterRegistry } from '../../src/convert/converter-registry.js';
import { plainTextConverter } from '../../src/convert/converters/plain-text-converter.js';
import type { InjectionTrace } from '../../src/types.js';
import { startControlledServer } from '../support/controlled-server.js';
import { startProviderHarness } from '../support/provider-harness.js';

const uri = 'doc://a';
const text = (value: string) => [{ uri, mimeType: 'text/plain', text: value }];
const entryOf = (trace: InjectionTrace) => trace.entries.find((entry) => entry.uri === uri);

/** A provider over a controlled server named `controlled`, with `doc://a` pinned to `support`. */
async function startRace(options: Parameters<typeof startProviderHarness>[1] = {}) {
  const server = startControlledServer({ [uri]: text('version 1 of the document') });
  onTestFinished(async () => {
    await server.close();
  });
  const harness = await startProviderHarness('memory', {
    ...options,
    extraServers: { controlled: server.serverConfig },
  });
  await harness.attachments.pin({ scope: { pipelineId: 'support' }, server: 'controlled', uri });
  const nextInvalidation = () =>
    new Promise((resolve) => harness.provider.once('cache-invalidated', resolve));
  return { ...harness, server, nextInvalidation };
}

describe.each([
  {
    notification: 'resources/updated',
    send: (server: ReturnType<typeof startControlledServer>) => server.notifyUpdated(uri),
    event: { server: 'controlled', uri, reason: 'resource updated', entries: 0 },
  },
  {
    notification: 'resources/list_changed',
    send: (server: ReturnType<typeof startControlledServer>) => server.notifyListChanged(),
    event: { server: 'controlled', reason: 'resource list changed', entries: 0 },
  },
])('a real server sends $notification while a read is in flight', ({ send, event }) => {
  it('the waiting turn gets what it asked for, that result is not kept, and the next turn reads the new version', async () => {
    const { provider, server, nextInvalidation } = await startRace();
    const held = server.holdNextRead(uri);
    const turn = provider.provide({ pipelineId: 'support' });
    await held.started;

    const invalidated = nextInvalidation();
    await send(server);
    expect(await invalidated).toEqual(event);
    server.setText(uri, 'version 2 of the document');
    held.release();

    const first = await turn;
    expect(first.blocks.map((block) => block.text).join('')).toContain('version 1 of the document');
    expect(entryOf(first.trace)).toMatchObject({ status: 'injected', cache: 'miss' });

    const second = await provider.provide({ pipelineId: 'support' });
    expect(second.blocks.map((block) => block.text).join('')).toContain('version 2 of the document');
    expect(entryOf(second.trace)).toMatchObject({ status: 'injected', cache: 'miss', change: 'changed' });

    const third = await provider.provide({ pipelineId: 'support' });
    expect(entryOf(third.trace)).toMatchObject({ cache: 'hit', change: 'unchanged' });
    expect(server.readCount(uri)).toBe(2);
  });
});

describe('stale-on-timeout', () => {
  it('a read that times out is answered with the cached copy, marked stale with READ_TIMEOUT', async () => {
    // ttlMs 0: nothing is fresh, so the second turn must ask the server, which never answers.
    const { provider, server } = await startRace({
      provider: { cache: { ttlMs: 0 }, readTimeoutMs: 200, turnDeadlineMs: 60_000 },
    });
    const first = await provider.provide({ pipelineId: 'support' });
    server.hang(uri);

    const second = await provider.provide({ pipelineId: 'support' });
    expect(entryOf(second.trace)).toMatchObject({
      status: 'stale',
      cache: 'stale',
      sha256: entryOf(first.trace)?.sha256,
      error: { code: 'READ_TIMEOUT' },
    });
    expect(second.blocks.map((block) => block.text).join('')).toContain('version 1 of the document');
    expect(server.readCount(uri)).toBe(2);
  });

  it('without a cached copy, a read that times out is a timeout, and no content', async () => {
    const { provider, server } = await startRace({
      provider: { readTimeoutMs: 200, turnDeadlineMs: 60_000 },
    });
    server.hang(uri);
    const { trace, blocks } = await provider.provide({ pipelineId: 'support' });
    expect(entryOf(trace)).toMatchObject({
      status: 'timeout',
      cache: 'miss',
      error: { code: 'READ_TIMEOUT' },
    });
    expect(blocks.map((block) => block.text).join('')).not.toContain('version 1');
  });
});

describe('unchanged content re-read after an invalidation', () => {
  it('is read again but not converted or tokenized again', async () => {
    const conversions: string[] = [];
    const converters = new ConverterRegistry().register({
      ...plainTextConverter,
      name: 'counted-plain-text',
      convert: (input) => {
        conversions.push(input.uri);
        return plainTextConverter.convert(input);
      },
    });
    // A tokenizer of its own (empty count caches), and a spy on the real encoder (it calls
    // through): every BPE call of any tokenizer instance is seen.
    const tokenizer = createTiktokenTokenizer();
    onTestFinished(() => tokenizer.dispose());
    const encodeOrdinary = vi.spyOn(OrdinaryEncoder.prototype, 'encode');
    onTestFinished(() => encodeOrdinary.mockRestore());
    const { provider, server, nextInvalidation } = await startRace({
      provider: { converters, tokenizer },
    });
    server.setText(uri, 'The checkout service validates the cart and charges the card.\n'.repeat(400));

    const first = await provider.provide({ pipelineId: 'support' });
    expect(conversions).toEqual([uri]);
    expect(encodeOrdinary).toHaveBeenCalled();

    const invalidated = nextInvalidation();
    await server.notifyUpdated(uri);
    expect(await invalidated).toMatchObject({ uri, entries: 1 });
    encodeOrdinary.mockClear();

    const second = await provider.provide({ pipelineId: 'support' });
    expect(server.readCount(uri)).toBe(2);
    expect(entryOf(second.trace)).toMatchObject({ cache: 'miss', change: 'unchanged' });
    expect(conversions).toEqual([uri]);
    expect(encodeOrdinary).not.toHaveBeenCalled();
    expect(second.blocks).toEqual(first.blocks);
  });
});
