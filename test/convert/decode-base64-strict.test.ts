import { describe, expect, it } from 'vitest';
import { decodeBase64Strict } from '../../src/convert/decode-base64-strict.js';

describe('decodeBase64Strict', () => {
  it('decodes base64 with and without padding', () => {
    expect([...decodeBase64Strict('QUJD', 'x://a')]).toEqual([0x41, 0x42, 0x43]);
    expect([...decodeBase64Strict('QQ==', 'x://a')]).toEqual([0x41]);
    expect([...decodeBase64Strict('', 'x://a')]).toEqual([]);
  });

  it.each([
    ['a length that is not a multiple of 4, in base64 characters only', 'QUJ'],
    ['a character outside the alphabet', 'QU!D'],
    ['URL-safe characters', 'QU-_'],
    ['more than two padding characters', 'Q==='],
    ['padding in the middle', 'QQ==QUJD'],
  ])('refuses %s, naming the URI', (_, blob) => {
    expect(() => decodeBase64Strict(blob, 'x://blob')).toThrow(
      expect.objectContaining({
        code: 'UNSUPPORTED_CONTENT',
        message: 'x://blob: the blob is not valid base64',
        value: 'x://blob',
      }),
    );
  });
});
