import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { convertContents } from '../../src/convert/convert-contents.js';
import { parseMediaType } from '../../src/convert/media-type.js';

const base64 = (data: string | Uint8Array) => Buffer.from(data).toString('base64');

describe('parseMediaType', () => {
  it('parses essence, suffix and parameters, case-insensitively', () => {
    expect(parseMediaType('Application/LD+JSON; charset="utf-8"')).toEqual({
      essence: 'application/ld+json',
      type: 'application',
      subtype: 'ld+json',
      suffix: 'json',
      parameters: { charset: 'utf-8' },
    });
  });

  it('refuses what is not a media type', () => {
    expect(parseMediaType('json')).toBeUndefined();
    expect(parseMediaType('text/plain/extra')).toBeUndefined();
    expect(parseMediaType('')).toBeUndefined();
  });
});

describe('convertContents', () => {
  it.each([
    ['text/yaml', 'repos:\n  - name: acme'],
    ['text/markdown', '# Setup'],
    ['application/json', '{"a":1}'],
    ['application/vnd.api+json', '{"data":[]}'],
    ['application/atom+xml', '<feed/>'],
    ['application/yaml', 'a: 1'],
  ])('keeps %s text as text', (mimeType, text) => {
    const converted = convertContents([{ uri: 'x://a', mimeType, text }]);
    expect(converted).toMatchObject({ body: text, textual: true, mimeType, omittedContents: [] });
    expect(converted.sha256).toBe(createHash('sha256').update(text).digest('hex'));
  });

  it('decodes a blob with a text media type as UTF-8', () => {
    const converted = convertContents([{ uri: 'x://a', mimeType: 'text/csv', blob: base64('a,b\n1,2') }]);
    expect(converted).toMatchObject({ body: 'a,b\n1,2', textual: true, bytes: 7 });
  });

  it('reports binary content as not shown, with its type and size, and never decodes it', () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]);
    const converted = convertContents([{ uri: 'x://logo', mimeType: 'image/png', blob: base64(png) }]);
    expect(converted.textual).toBe(false);
    expect(converted.omittedContents).toEqual([
      { uri: 'x://logo', mimeType: 'image/png', bytes: 8, reason: 'binary content is not converted to text' },
    ]);
    expect(converted.body).toBe(
      '[content not shown: x://logo is image/png, 8 bytes; binary content is not converted to text]',
    );
  });

  it('flags a text-typed blob that is not valid UTF-8 instead of garbling it', () => {
    const converted = convertContents([
      { uri: 'x://a', mimeType: 'text/plain', blob: base64(new Uint8Array([0x66, 0xff, 0xfe])) },
    ]);
    expect(converted.textual).toBe(false);
    expect(converted.omittedContents[0]?.reason).toContain('not valid UTF-8');
    expect(converted.body).not.toContain('\uFFFD');
  });

  it('handles every content item of a read, not just the first', () => {
    const converted = convertContents([
      { uri: 'x://dir/a.md', mimeType: 'text/markdown', text: 'alpha' },
      { uri: 'x://dir/b.bin', mimeType: 'application/octet-stream', blob: base64('zz') },
      { uri: 'x://dir/c.txt', mimeType: 'text/plain', text: 'gamma' },
    ]);
    expect(converted.body).toContain('--- x://dir/a.md (text/markdown) ---\nalpha');
    expect(converted.body).toContain('--- x://dir/c.txt (text/plain) ---\ngamma');
    expect(converted.omittedContents).toHaveLength(1);
    expect(converted.bytes).toBe(5 + 2 + 5);
  });

  it('an invalid base64 blob is an error, not content', () => {
    expect(() => convertContents([{ uri: 'x://a', mimeType: 'image/png', blob: 'not base64!' }])).toThrow(
      expect.objectContaining({ code: 'UNSUPPORTED_CONTENT' }),
    );
  });
});
