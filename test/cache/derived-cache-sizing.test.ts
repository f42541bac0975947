import { describe, expect, it, onTestFinished } from 'vitest';
import { ContentCache } from '../../src/cache/content-cache.js';
import { ConverterRegistry } from '../../src/convert/converter-registry.js';
import { plainTextConverter } from '../../src/convert/converters/plain-text-converter.js';
import type { ResourceContextProviderOptions } from '../../src/provider/resource-context-provider-options.js';
import { startControlledServer } from '../support/controlled-server.js';
import { startProviderHarness } from '../support/provider-harness.js';

const mebibyte = 1024 * 1024;
const pins = 16;

/**
 * A controlled server `docs` with 16 distinct 1 MiB text documents, all pinned to `support`, and
 * a provider whose plain-text converter counts its calls. 16 MiB of content, inside a default
 * 32 MiB content cache; its conversions (16 MiB of ASCII text, held at a byte a character) fit the
 * 21 MiB the default derived cache's conversions keep in main.
 */
async function startLargePins(provider: Partial<ResourceContextProviderOptions> = {}) {
  const documents = Object.fromEntries(
    Array.from({ length: pins }, (_, index) => {
      const uri = `doc://large/${index}`;
      const line = `document ${index}: the quick brown fox jumps over the lazy dog\n`;
      return [uri, [{ uri, mimeType: 'text/plain', text: line.repeat(Math.ceil(mebibyte / line.length)) }]];
    }),
  );
  const server = startControlledServer(documents);
  onTestFinished(async () => {
    await server.close();
  });
  let conversions = 0;
  const converters = new ConverterRegistry().register({
    ...plainTextConverter,
    convert: (input) => {
      conversions++;
      return plainTextConverter.convert(input);
    },
  });
  const harness = await startProviderHarness('memory', {
    extraServers: { docs: server.serverConfig },
    provider: { budget: { maxTokens: 2_000 }, converters, ...provider },
  });
  for (const uri of Object.keys(documents)) {
    await harness.attachments.pin({ scope: { pipelineId: 'support' }, server: 'docs', uri });
  }
  return { ...harness, conversions: () => conversions };
}

describe('the derived cache follows the content cache', () => {
  it('every body the content cache holds keeps its conversion: a warm turn converts nothing again', async () => {
    const { provider, conversions } = await startLargePins();
    await provider.provide({ pipelineId: 'support' });
    expect(conversions()).toBe(pins);
    const warm = await provider.provide({ pipelineId: 'support' });
    expect(warm.trace.entries.filter((entry) => entry.cache === 'hit')).toHaveLength(pins);
    expect(conversions()).toBe(pins);
    // Each conversion is accounted as 1 MiB of text (ASCII, held at a byte a character), all held.
    expect(provider.metrics?.derivedBytesHeld).toBeGreaterThan(pins * mebibyte);
  });

  it('a shared ContentCache sizes the derived cache of every provider over it', async () => {
    const { provider, conversions } = await startLargePins({
      cache: new ContentCache({ maxBytes: 64 * mebibyte }),
    });
    await provider.provide({ pipelineId: 'support' });
    await provider.provide({ pipelineId: 'support' });
    expect(conversions()).toBe(pins);
  });

  it('derivedMaxBytes bounds it: derived data past the bound is evicted and converted again', async () => {
    const { provider, conversions } = await startLargePins({ cache: { derivedMaxBytes: 16 * mebibyte } });
    await provider.provide({ pipelineId: 'support' });
    await provider.provide({ pipelineId: 'support' });
    // 8 MiB for conversions (7 MiB main) holds 6 of the 16: the next turn, in pin order, finds none of them.
    expect(conversions()).toBe(2 * pins);
    expect(provider.metrics?.derivedBytesHeld).toBeLessThanOrEqual(16 * mebibyte);
  });

  it('refuses a derivedMaxBytes that is not a positive integer, naming it', () => {
    for (const derivedMaxBytes of [0, -1, 1.5, '1mb']) {
      expect(() => new ContentCache({ derivedMaxBytes } as never)).toThrow(
        expect.objectContaining({
          code: 'INVALID_OPTION',
          field: 'cache.derivedMaxBytes',
        }),
      );
    }
    expect(new ContentCache({ maxBytes: 1000 }).derivedMaxBytes).toBe(1500);
    expect(new ContentCache({ maxBytes: 1001 }).derivedMaxBytes).toBe(1501);
    expect(new ContentCache({ maxBytes: 1000, derivedMaxBytes: 10 }).derivedMaxBytes).toBe(10);
  });
});
