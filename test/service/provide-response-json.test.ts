import { describe, expect, it } from 'vitest';
import type { ContextBlock, InjectionTrace } from '../../src/index.js';
import { provideResponseJson } from '../../src/service/provide-route.js';

const blocks: readonly ContextBlock[] = Object.freeze([
  { kind: 'preamble', text: 'The following context comes from MCP resources\n' } as ContextBlock,
]);
const trace: InjectionTrace = {
  turnId: 't-1',
  pipelineId: 'support',
  conversationId: 'c-"42"',
  startedAt: '2026-01-01T00:00:00.000Z',
  durationMs: 0.5,
  budget: { maxTokens: 4000, usedTokens: 12, tokenizer: 'tiktoken:o200k_base', exact: true, margin: 0 },
  entries: Object.freeze([]),
};

describe('the JSON of a turn’s answer', () => {
  it('is the JSON of { blocks, trace, rendered }', () => {
    const rendered = { text: 'x </mcp-resource> \u2028' };
    expect(JSON.parse(provideResponseJson(blocks, trace, rendered))).toEqual({ blocks, trace, rendered });
    expect(JSON.parse(provideResponseJson(blocks, trace, undefined))).toEqual({ blocks, trace });
  });

  it('serializes a frozen array once (a kept turn’s blocks and entries), an unfrozen one every time', () => {
    const block = { kind: 'preamble', text: 'before' };
    const frozen = Object.freeze([block as ContextBlock]);
    const first = provideResponseJson(frozen, trace, undefined);
    // Nothing changes a frozen array's elements in the service; had something, the text made first stands.
    block.text = 'after';
    expect(provideResponseJson(frozen, trace, undefined)).toBe(first);
    const open = [block as ContextBlock];
    expect(JSON.parse(provideResponseJson(open, trace, undefined)).blocks[0].text).toBe('after');
    block.text = 'again';
    expect(JSON.parse(provideResponseJson(open, trace, undefined)).blocks[0].text).toBe('again');
  });
});
