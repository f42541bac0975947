import { describe, expect, it } from 'vitest';
import { measureContents } from '../../src/cache/measure-contents.js';
import { hashContents } from '../../src/convert/hash-contents.js';

describe('measureContents', () => {
  it('counts text as UTF-8 bytes and blobs as their base64 text, and hashes the contents as sent', () => {
    const result = {
      contents: [
        { uri: 'x://t', mimeType: 'text/plain', text: 'héllo' },
        { uri: 'x://b', mimeType: 'image/png', blob: 'AAECAw==' },
      ],
    };
    const measured = measureContents(result);
    expect(measured).toEqual({ result, sha256: hashContents(result.contents), bytes: 6 + 8 });
    expect(measured.result).toBe(result);
  });

  it('an item with neither text nor blob holds no bytes', () => {
    const result = { contents: [{ uri: 'x://empty' }] as { uri: string; text: string }[] };
    expect(measureContents(result).bytes).toBe(0);
  });
});
