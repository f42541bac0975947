import { describe, expect, it } from 'vitest';
import { sniffMediaType } from '../../src/convert/sniff-media-type.js';

describe('sniffMediaType', () => {
  it('valid UTF-8 without NUL bytes is text/plain, returned decoded', () => {
    expect(sniffMediaType(new TextEncoder().encode('héllo 日本'))).toStrictEqual({
      mimeType: 'text/plain',
      text: 'héllo 日本',
    });
    expect(sniffMediaType(new Uint8Array(0))).toStrictEqual({ mimeType: 'text/plain', text: '' });
  });

  it('a NUL byte makes it binary, though the rest is text', () => {
    expect(sniffMediaType(new Uint8Array([0x68, 0, 0x69]))).toStrictEqual({
      mimeType: 'application/octet-stream',
    });
  });

  it('invalid UTF-8 without NUL bytes is binary', () => {
    expect(sniffMediaType(new Uint8Array([0x66, 0xff, 0xfe]))).toStrictEqual({
      mimeType: 'application/octet-stream',
    });
  });
});
