import { describe, expect, it } from 'vitest';
import { decodeUtf8Whole } from '../../src/budget/decode-utf8-whole.js';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('decodeUtf8Whole', () => {
  it('drops a character cut at the end instead of producing U+FFFD', () => {
    const full = bytes('abc日本');
    expect(decodeUtf8Whole(full.subarray(0, full.length - 1))).toBe('abc日');
    expect(decodeUtf8Whole(full.subarray(0, full.length - 2))).toBe('abc日');
    expect(decodeUtf8Whole(full)).toBe('abc日本');
  });

  it('drops continuation bytes at the start', () => {
    const full = bytes('🎉x');
    expect(decodeUtf8Whole(full.subarray(1))).toBe('x');
  });

  it('keeps a complete four-byte character at the end', () => {
    expect(decodeUtf8Whole(bytes('ok 🎉'))).toBe('ok 🎉');
  });
});
