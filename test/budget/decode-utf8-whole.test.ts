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

  it('drops a cut two-byte character, and a cut character that is all there is', () => {
    // "é" is C3 A9: its lead byte alone at the end, or alone in the bytes, is dropped.
    expect(decodeUtf8Whole(Uint8Array.of(0x61, 0xc3))).toBe('a');
    expect(decodeUtf8Whole(Uint8Array.of(0xc3))).toBe('');
    // "日" is E6 97 A5.
    expect(decodeUtf8Whole(Uint8Array.of(0xe6, 0x97))).toBe('');
  });

  it('keeps a byte that cannot start a character as U+FFFD: it is not a cut character', () => {
    expect(decodeUtf8Whole(Uint8Array.of(0x61, 0xff))).toBe('a\uFFFD');
  });

  it('drops continuation bytes at the start', () => {
    const full = bytes('🎉xy');
    expect(decodeUtf8Whole(full.subarray(1))).toBe('xy');
    expect(decodeUtf8Whole(full.subarray(2))).toBe('xy');
    expect(decodeUtf8Whole(full.subarray(3))).toBe('xy');
  });

  it('drops at most three continuation bytes at the start (a cut character has no more)', () => {
    expect(decodeUtf8Whole(Uint8Array.of(0x80, 0x80, 0x80, 0x80, 0x78))).toBe('\uFFFDx');
  });

  it('keeps a complete four-byte character at the end', () => {
    expect(decodeUtf8Whole(bytes('ok 🎉'))).toBe('ok 🎉');
  });
});
