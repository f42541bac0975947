import { afterEach, describe, expect, it, vi } from 'vitest';
import { measureContents } from '../../src/cache/measure-contents.js';
import { convertContents } from '../../src/convert/convert-contents.js';
import { textBytesOf } from '../../src/convert/text-bytes.js';
import { capReadResult } from '../../src/mcp/cap-read-result.js';

afterEach(() => {
  vi.restoreAllMocks();
});

/** Calls of Buffer.byteLength on strings at least `length` long, from here on. */
function countByteLengths(length: number): () => number {
  const original = Buffer.byteLength;
  let calls = 0;
  vi.spyOn(Buffer, 'byteLength').mockImplementation((value, encoding) => {
    if (typeof value === 'string' && value.length >= length) calls++;
    return original(value, encoding);
  });
  return () => calls;
}

describe('the UTF-8 size of a content item, measured once', () => {
  it.each([
    ['ASCII', 'plain text\n', 11],
    ['two-byte', 'héllo', 6],
    ['three-byte', '日本', 6],
    ['a surrogate pair', '🙂', 4],
    ['a lone surrogate (written as U+FFFD)', '\ud800', 3],
    ['empty', '', 0],
  ])('%s text counts as Buffer.byteLength does', (_, text, bytes) => {
    expect(textBytesOf({ text })).toBe(bytes);
  });

  it('a read passing the byte cap, the content cache and conversion has its 64 KB body measured once', () => {
    const text = 'x'.repeat(64 * 1024);
    const read = { contents: [{ uri: 'x://big', mimeType: 'text/plain', text }] };
    const calls = countByteLengths(text.length);
    const capped = capReadResult(read, 1024 * 1024);
    const measured = measureContents(capped);
    const converted = convertContents(measured.result.contents);
    expect(capped).toBe(read);
    expect(measured.bytes).toBe(64 * 1024);
    expect(converted.bytes).toBe(64 * 1024);
    expect(calls()).toBe(1);
  });

  it('an item whose text was replaced is measured again, not served the old size', () => {
    const item = { uri: 'x://doc', text: 'short' };
    expect(textBytesOf(item)).toBe(5);
    item.text = 'longer, and é';
    expect(textBytesOf(item)).toBe(14);
  });

  it('a cut read is measured as cut: its items are new, with the kept text', () => {
    const text = 'é'.repeat(1000);
    const read = { contents: [{ uri: 'x://doc', mimeType: 'text/plain', text }] };
    const capped = capReadResult(read, 101);
    expect(measureContents(capped).bytes).toBe(100);
    expect(convertContents(capped.contents).bytes).toBe(100);
  });
});
