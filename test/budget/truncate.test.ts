import { describe, expect, it } from 'vitest';
import { scoreChunksBm25 } from '../../src/budget/truncate/score-chunks-bm25.js';
import { splitIntoChunks } from '../../src/budget/truncate/split-into-chunks.js';
import { truncationMarker } from '../../src/budget/truncation-marker.js';

describe('splitIntoChunks', () => {
  it('covers the text exactly, in order, and cuts a very long line', () => {
    const text = `${'word '.repeat(1000)}\nshort\n\n${'line of text\n'.repeat(100)}`;
    const chunks = splitIntoChunks(text);
    expect(chunks[0]?.start).toBe(0);
    expect(chunks.at(-1)?.end).toBe(text.length);
    for (const [index, chunk] of chunks.entries()) {
      if (index > 0) expect(chunk.start).toBe(chunks[index - 1]?.end);
      expect(chunk.end - chunk.start).toBeLessThanOrEqual(1_200);
    }
  });
});

describe('scoreChunksBm25', () => {
  it('ranks the chunk that mentions the query terms highest, rare terms weighing more', () => {
    const text = 'the cart and the stock\n\nthe checkout fails at payment\n\nthe the the the\n';
    const chunks = [
      { start: 0, end: 23 },
      { start: 23, end: 54 },
      { start: 54, end: text.length },
    ];
    const scores = scoreChunksBm25(text, chunks, 'why does checkout fail at payment?');
    expect(scores[1]).toBeGreaterThan(scores[0] ?? 0);
    expect(scores[2]).toBe(0);
  });

  it('matches CJK text character by character', () => {
    const text = '支付失败的原因\n\n库存管理\n';
    const scores = scoreChunksBm25(
      text,
      [
        { start: 0, end: 8 },
        { start: 8, end: text.length },
      ],
      '为什么支付失败',
    );
    expect(scores[0]).toBeGreaterThan(scores[1] ?? 0);
  });
});

describe('truncationMarker', () => {
  const facts = { server: 'docs', uri: 'docs://guide', originalTokens: 900 };

  it('a cut to the end says what was omitted after which token and how to read on', () => {
    expect(truncationMarker({ ...facts, range: { startToken: 100, endToken: 900 } })).toBe(
      '\n[truncated: 800 of 900 tokens omitted after token 100; read more with read_mcp_resource {"server":"docs","uri":"docs://guide","offset":100}]',
    );
  });

  it('a cut in the middle names its range; an estimate is marked with ~', () => {
    expect(truncationMarker({ ...facts, estimated: true, range: { startToken: 100, endToken: 700 } })).toBe(
      '\n[truncated: ~600 of ~900 tokens omitted (tokens ~100–~700); read more with read_mcp_resource {"server":"docs","uri":"docs://guide","offset":100}]\n',
    );
  });
});
