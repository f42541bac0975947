import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { capReadResult } from '../../src/mcp/cap-read-result.js';

const text = (uri: string, value: string) => ({ uri, mimeType: 'text/plain', text: value });

describe('capReadResult', () => {
  it('a read of exactly maxBytes, over several items, is the same result: nothing copied, no truncation', () => {
    const result = { contents: [text('doc://a', 'é'.repeat(3)), text('doc://b', 'xyz')] };
    // 6 bytes of UTF-8 and 3 bytes: 9 in all.
    expect(capReadResult(result, 9)).toBe(result);
  });

  it('one byte over, across items: the last item is cut and the truncation says so', () => {
    const result = { contents: [text('doc://a', 'é'.repeat(3)), text('doc://b', 'xyz')] };
    const capped = capReadResult(result, 8);
    expect(capped).not.toBe(result);
    expect(capped.contents).toEqual([text('doc://a', 'ééé'), text('doc://b', 'xy')]);
    expect(capped.truncation).toEqual({
      maxBytes: 8,
      originalBytes: 9,
      keptBytes: 8,
      items: [{ index: 1, uri: 'doc://b', mimeType: 'text/plain', originalBytes: 3, keptBytes: 2 }],
    });
    expect(result.contents[1]?.text).toBe('xyz');
  });

  it('a blob that does not fit is emptied, counted by the bytes it decodes to', () => {
    const blob = Buffer.from('abcdef').toString('base64');
    const result = { contents: [{ uri: 'doc://img', mimeType: 'image/png', blob }] };
    expect(capReadResult(result, 6)).toBe(result);
    const capped = capReadResult(result, 5);
    expect(capped.contents).toEqual([{ uri: 'doc://img', mimeType: 'image/png', blob: '' }]);
    expect(capped.truncation?.items).toEqual([
      { index: 0, uri: 'doc://img', mimeType: 'image/png', originalBytes: 6, keptBytes: 0 },
    ]);
  });

  it('a read capped again (the same object, as the cache serves it every turn) is not measured again', () => {
    const result = { contents: [text('doc://a', 'é'.repeat(3)), text('doc://b', 'xyz')] };
    const byteLength = vi.spyOn(Buffer, 'byteLength');
    onTestFinished(() => byteLength.mockRestore());
    expect(capReadResult(result, 9)).toBe(result);
    expect(byteLength).toHaveBeenCalledTimes(2);
    byteLength.mockClear();
    expect(capReadResult(result, 100)).toBe(result);
    expect(byteLength).not.toHaveBeenCalled();
    // A smaller cap still cuts it, exactly as before.
    expect(capReadResult(result, 8).contents).toEqual([text('doc://a', 'ééé'), text('doc://b', 'xy')]);
  });
});
