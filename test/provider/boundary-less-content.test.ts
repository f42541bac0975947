import { describe, expect, it, onTestFinished } from 'vitest';
import { type BoundaryLessKind, boundaryLessText } from '../../fixtures/boundary-less-text.js';
import type { Tokenizer } from '../../src/budget/tokenizer.js';
import { ConverterRegistry } from '../../src/convert/converter-registry.js';
import { plainTextConverter } from '../../src/convert/converters/plain-text-converter.js';
import type { InjectionTrace } from '../../src/types.js';
import { startControlledServer } from '../support/controlled-server.js';
import { sharedTokenizer, startProviderHarness } from '../support/provider-harness.js';

const entryOf = (trace: InjectionTrace, uri: string) => trace.entries.find((entry) => entry.uri === uri);
const fiveMegabytes = 5 * 1024 * 1024;

/** A provider whose pipeline pins `doc://big` (the given text) and `doc://small` on one in-process server. */
async function withBigPin(
  text: string,
  provider: Parameters<typeof startProviderHarness>[1] extends infer Options
    ? Options extends { provider?: infer Provider }
      ? Provider
      : never
    : never = {},
) {
  const server = startControlledServer({
    'doc://big': [{ uri: 'doc://big', mimeType: 'text/plain', text }],
    'doc://small': [{ uri: 'doc://small', mimeType: 'text/plain', text: 'a small note that fits' }],
  });
  onTestFinished(async () => {
    await server.close();
  });
  const harness = await startProviderHarness('memory', {
    extraServers: { docs: server.serverConfig },
    provider: { cache: false, ...provider },
  });
  for (const uri of ['doc://big', 'doc://small'])
    await harness.attachments.pin({ scope: { pipelineId: 'support' }, server: 'docs', uri });
  return harness;
}

describe('content without pre-tokenizer boundaries', () => {
  it.each<BoundaryLessKind>(['one-letter', 'base64', 'cjk'])(
    'a 5 MB body of %s is cut to its share with an estimated total, and the turn’s other attachment goes in',
    async (kind) => {
      const { provider } = await withBigPin(boundaryLessText(kind, fiveMegabytes));
      // Before: RangeError: Maximum call stack size exceeded (the pre-tokenizer regex on one
      // piece of five million letters), and the turn rejected with every attachment lost.
      const { trace, blocks } = await provider.provide({ pipelineId: 'support' });
      expect(entryOf(trace, 'doc://big')).toMatchObject({
        status: 'truncated',
        originalTokensEstimated: true,
      });
      expect(entryOf(trace, 'doc://small')?.status).toBe('injected');
      expect(trace.budget.usedTokens).toBeLessThanOrEqual(8000);
      // The budget is exact: the rendered context, counted whole, is what the trace says.
      expect(await sharedTokenizer.count(blocks.map((block) => block.text).join(''))).toBe(
        trace.budget.usedTokens,
      );
    },
    60_000,
  );
});

describe('one attachment’s unexpected throw is its own failure', () => {
  it('a count that throws for one attachment makes it an INTERNAL_ERROR entry; the turn goes on', async () => {
    // A tokenizer that overflows on one body, as the pre-tokenizer regex once did.
    const poisoned = (text: string) => text.includes('POISON');
    const overflow = () => new RangeError('Maximum call stack size exceeded');
    const tokenizer: Tokenizer = {
      ...sharedTokenizer,
      name: 'tiktoken:o200k_base+poisoned',
      count: async (text) => {
        if (poisoned(text)) throw overflow();
        return sharedTokenizer.count(text);
      },
      encodeWithin: async (text, limit, from, resume) => {
        if (poisoned(text)) throw overflow();
        if (!sharedTokenizer.encodeWithin) throw new Error('the tiktoken tokenizer encodes within a limit');
        return sharedTokenizer.encodeWithin(text, limit, from, resume);
      },
      dispose: () => {},
    };
    const { provider } = await withBigPin(`POISON ${'x'.repeat(2000)}`, { tokenizer });
    // Before: the RangeError rejected provide(), and doc://small was lost with it.
    const { trace, blocks } = await provider.provide({ pipelineId: 'support' });
    expect(entryOf(trace, 'doc://big')).toMatchObject({
      status: 'error',
      tokens: 0,
      error: {
        code: 'INTERNAL_ERROR',
        message: expect.stringContaining('doc://big: its content could not be counted or rendered'),
      },
    });
    expect(entryOf(trace, 'doc://big')?.error?.message).toContain('Maximum call stack size exceeded');
    expect(entryOf(trace, 'doc://small')?.status).toBe('injected');
    expect(blocks.map((block) => block.text).join('')).not.toContain('POISON');
  });

  it('a converter that throws leaves its item out, saying so; the turn goes on', async () => {
    // (So it was already: convert-contents.ts turns a converter's throw into an omitted item.)
    const converters = new ConverterRegistry().register({
      ...plainTextConverter,
      name: 'fragile-plain-text',
      convert: (input) => {
        if (input.uri === 'doc://big') throw new RangeError('Maximum call stack size exceeded');
        return plainTextConverter.convert(input);
      },
    });
    const { provider } = await withBigPin('any text', { converters });
    const { trace } = await provider.provide({ pipelineId: 'support' });
    expect(entryOf(trace, 'doc://big')).toMatchObject({
      status: 'unsupported',
      omittedContents: [
        {
          uri: 'doc://big',
          reason: 'converter "fragile-plain-text" failed: RangeError: Maximum call stack size exceeded',
        },
      ],
    });
    expect(entryOf(trace, 'doc://small')?.status).toBe('injected');
  });
});
