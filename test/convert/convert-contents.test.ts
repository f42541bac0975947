import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { convertContents } from '../../src/convert/convert-contents.js';
import type { Converter } from '../../src/convert/converter.js';
import { ConverterRegistry, createConverterRegistry } from '../../src/convert/converter-registry.js';
import { uiResourceReason } from '../../src/convert/ui-resource.js';

const base64 = (data: string | Uint8Array) => Buffer.from(data).toString('base64');

describe('convertContents', () => {
  it.each([
    ['text/yaml', 'repos:\n  - name: acme', 'repos:\n  - name: acme'],
    ['text/markdown', '# Setup', '# Setup'],
    ['application/json', '{"a": 1}', '{"a":1}'],
    ['application/vnd.api+json', '{"data": []}', '{"data":[]}'],
    ['application/atom+xml', '<feed/>', '<feed/>'],
    ['application/yaml', 'a: 1', 'a: 1'],
    ['text/html', '<p>hi</p>', '<p>hi</p>'],
  ])('converts %s text', (mimeType, text, expected) => {
    const converted = convertContents([{ uri: 'x://a', mimeType, text }]);
    expect(converted).toMatchObject({ textual: true, mimeType, omittedContents: [], notes: [] });
    expect(converted.sections).toEqual([
      { kind: 'text', uri: 'x://a', mimeType, bytes: Buffer.byteLength(text), text: expected },
    ]);
    expect(converted.sha256).toBe(createHash('sha256').update(text).digest('hex'));
  });

  it('decodes a blob with a text media type as UTF-8', () => {
    const converted = convertContents([{ uri: 'x://a', mimeType: 'text/csv', blob: base64('a,b\n1,2') }]);
    expect(converted.sections[0]).toMatchObject({ kind: 'text', text: 'a,b\n1,2', pinnedLines: 1 });
    expect(converted.bytes).toBe(7);
  });

  it('keeps an image as a media section with its base64 data, never decoded as text', () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]);
    const converted = convertContents([{ uri: 'x://logo', mimeType: 'image/png', blob: base64(png) }]);
    expect(converted.sections).toEqual([
      {
        kind: 'media',
        uri: 'x://logo',
        mimeType: 'image/png',
        mediaKind: 'image',
        bytes: 8,
        data: base64(png),
      },
    ]);
    expect(converted.textual).toBe(true);
  });

  it('reports other binary content as not shown, with its type and size', () => {
    const converted = convertContents([
      { uri: 'x://a.zip', mimeType: 'application/zip', blob: base64('PK\u0003\u0004') },
    ]);
    expect(converted.textual).toBe(false);
    expect(converted.omittedContents).toEqual([
      {
        uri: 'x://a.zip',
        mimeType: 'application/zip',
        bytes: 4,
        reason: 'binary content is not converted to text',
      },
    ]);
  });

  it('flags a text-typed blob that is not valid UTF-8 instead of garbling it', () => {
    const converted = convertContents([
      { uri: 'x://a', mimeType: 'text/plain', blob: base64(new Uint8Array([0x66, 0xff, 0xfe])) },
    ]);
    expect(converted.textual).toBe(false);
    expect(converted.omittedContents[0]?.reason).toBe(
      'the blob is not valid UTF-8 although labelled text/plain',
    );
  });

  it('sniffs a blob without a media type: UTF-8 without NULs is text, anything else binary', () => {
    const text = convertContents([{ uri: 'x://notes', blob: base64('héllo') }]);
    expect(text.sections[0]).toMatchObject({ kind: 'text', mimeType: 'text/plain', text: 'héllo' });
    const binary = convertContents([{ uri: 'x://dump', blob: base64(new Uint8Array([0x68, 0, 0x69])) }]);
    expect(binary.sections[0]).toMatchObject({
      kind: 'omitted',
      mimeType: 'application/octet-stream',
      bytes: 3,
    });
    const code = convertContents([{ uri: 'x://src/main.go', text: 'package main' }]);
    expect(code.sections[0]).toMatchObject({ text: '```go\npackage main\n```' });
  });

  it('invalid JSON is kept as text and noted for the trace', () => {
    const converted = convertContents([{ uri: 'x://a', mimeType: 'application/json', text: '{oops' }]);
    expect(converted.sections[0]).toMatchObject({ kind: 'text', text: '{oops' });
    expect(converted.notes).toEqual(['x://a: labelled application/json but not valid JSON; shown as sent']);
  });

  it('handles every content item of a read, not just the first', () => {
    const converted = convertContents([
      { uri: 'x://dir/a.md', mimeType: 'text/markdown', text: 'alpha' },
      { uri: 'x://dir/b.bin', mimeType: 'application/octet-stream', blob: base64('zz') },
      { uri: 'x://dir/c.txt', mimeType: 'text/plain', text: 'gamma' },
    ]);
    expect(converted.sections.map((section) => section.kind)).toEqual(['text', 'omitted', 'text']);
    expect(converted.omittedContents).toHaveLength(1);
    expect(converted.bytes).toBe(5 + 2 + 5);
  });

  it('an invalid base64 blob is an error, not content', () => {
    expect(() => convertContents([{ uri: 'x://a', mimeType: 'image/png', blob: 'not base64!' }])).toThrow(
      expect.objectContaining({ code: 'UNSUPPORTED_CONTENT' }),
    );
  });

  it('uses a registered converter, and one that throws becomes a reasoned omission', () => {
    const shouting: Converter = {
      name: 'shouting',
      mediaTypes: ['text/x-shout'],
      input: 'text',
      convert: ({ text = '' }) => ({ kind: 'text', text: text.toUpperCase() }),
    };
    const failing: Converter = {
      name: 'failing',
      mediaTypes: ['text/x-fail'],
      input: 'text',
      convert: () => {
        throw new Error('boom');
      },
    };
    const registry = createConverterRegistry([shouting, failing]);
    const converted = convertContents(
      [
        { uri: 'x://a', mimeType: 'text/x-shout', text: 'hey' },
        { uri: 'x://b', mimeType: 'text/x-fail', text: 'hey' },
      ],
      registry,
    );
    expect(converted.sections[0]).toMatchObject({ text: 'HEY' });
    expect(converted.sections[1]).toMatchObject({
      kind: 'omitted',
      reason: 'converter "failing" failed: Error: boom',
    });
  });
});

describe('convertContents: items, defaults and what reaches a converter', () => {
  const sha256 = (bytes: string | Uint8Array) => createHash('sha256').update(bytes).digest('hex');

  it('a read with no items converts to nothing, typed application/octet-stream and not textual', () => {
    expect(convertContents([])).toStrictEqual({
      mimeType: 'application/octet-stream',
      sections: [],
      textual: false,
      bytes: 0,
      sha256: sha256(''),
      omittedContents: [],
      notes: [],
    });
  });

  it('is textual when any item can be shown, though others cannot', () => {
    const converted = convertContents([
      { uri: 'x://a.zip', mimeType: 'application/zip', blob: base64('PK') },
      { uri: 'x://b', mimeType: 'text/plain', text: 'b' },
    ]);
    expect(converted.textual).toBe(true);
    expect(converted.mimeType).toBe('application/zip');
  });

  it('a text item without a media type is text/plain by the protocol, and carries no pinnedLines unless its converter pins some', () => {
    const converted = convertContents([{ uri: 'x://notes', text: 'héllo' }]);
    expect(converted.mimeType).toBe('text/plain');
    expect(converted.sections).toStrictEqual([
      { kind: 'text', uri: 'x://notes', mimeType: 'text/plain', bytes: 6, text: 'héllo' },
    ]);
  });

  it('an item is text only when its text is a string: `text: null` beside a blob is the blob', () => {
    const item = { uri: 'x://a', mimeType: 'text/plain', text: null, blob: base64('from blob') };
    const converted = convertContents([item as never]);
    expect(converted.sections).toStrictEqual([
      { kind: 'text', uri: 'x://a', mimeType: 'text/plain', bytes: 9, text: 'from blob' },
    ]);
  });

  it('an item with neither a string text nor a string blob is empty content, not a crash', () => {
    const converted = convertContents([
      { uri: 'x://a', mimeType: 'application/zip' } as never,
      { uri: 'x://b', mimeType: 'application/zip', blob: null } as never,
    ]);
    expect(converted.sections).toStrictEqual([
      {
        kind: 'omitted',
        uri: 'x://a',
        mimeType: 'application/zip',
        bytes: 0,
        reason: 'binary content is not converted to text',
      },
      {
        kind: 'omitted',
        uri: 'x://b',
        mimeType: 'application/zip',
        bytes: 0,
        reason: 'binary content is not converted to text',
      },
    ]);
  });

  it('a text item labelled with a binary type is omitted, naming the type, not shown as an empty image', () => {
    const converted = convertContents([{ uri: 'x://logo', mimeType: 'image/png', text: 'not an image' }]);
    expect(converted.sections).toStrictEqual([
      {
        kind: 'omitted',
        uri: 'x://logo',
        mimeType: 'image/png',
        bytes: 12,
        reason: 'a text item cannot carry image/png data',
      },
    ]);
  });

  it.each([
    ['ui://weather/app', 'text/html'],
    ['UI://weather/app', undefined],
    ['https://example.com/app', 'text/html;profile=mcp-app'],
  ])('an MCP Apps UI resource (%s, %s) is omitted before any converter runs', (uri, mimeType) => {
    const converted = convertContents([{ uri, ...(mimeType && { mimeType }), text: '<script>x()</script>' }]);
    expect(converted.sections).toStrictEqual([
      { kind: 'omitted', uri, mimeType: mimeType ?? 'text/plain', bytes: 20, reason: uiResourceReason },
    ]);
    expect(converted.textual).toBe(false);
  });

  it('a read asked for under a ui:// URI omits every item, whatever URI and media type the item carries', () => {
    const items = [
      { uri: 'https://cdn.example.com/app.html', mimeType: 'text/html', text: '<div id="app"></div>' },
      { uri: 'docs://guide', mimeType: 'text/markdown', text: '# Guide' },
    ];
    const asked = convertContents(items, undefined, undefined, 'ui://weather/app');
    expect(asked.sections.map((section) => [section.kind, section.uri])).toEqual([
      ['omitted', 'https://cdn.example.com/app.html'],
      ['omitted', 'docs://guide'],
    ]);
    expect(asked.omittedContents.map((item) => item.reason)).toEqual([uiResourceReason, uiResourceReason]);
    expect(asked.textual).toBe(false);
    // Asked for under another URI, the same items are content.
    const plain = convertContents(items, undefined, undefined, 'docs://mirror');
    expect(plain.sections.map((section) => section.kind)).toEqual(['text', 'text']);
  });

  it('a converter gets the parsed media type when there is one, and no mediaType key when there is none', () => {
    const echo = (name: string, mediaTypes: string[]): Converter => ({
      name,
      mediaTypes,
      input: 'text',
      convert: (input) => ({
        kind: 'text',
        text: JSON.stringify({ keys: Object.keys(input).sort(), essence: input.mediaType?.essence }),
      }),
    });
    const registry = new ConverterRegistry([echo('echo', ['text/x-echo'])], echo('fallback', ['x/fallback']));
    const converted = convertContents(
      [
        { uri: 'x://a', mimeType: 'TEXT/X-ECHO; a=1', text: 'a' },
        { uri: 'x://b', mimeType: 'not a type', text: 'b' },
      ],
      registry,
    );
    expect(converted.sections.map((section) => section.kind === 'text' && section.text)).toEqual([
      '{"keys":["mediaType","mimeType","text","uri"],"essence":"text/x-echo"}',
      '{"keys":["mimeType","text","uri"]}',
    ]);
  });

  it('a media converter that changes the bytes (a transcoder) ships its bytes, not the blob as sent', () => {
    const transcoder: Converter = {
      name: 'transcoder',
      mediaTypes: ['image/x-raw'],
      input: 'binary',
      convert: () => ({
        kind: 'media',
        mediaKind: 'image',
        mimeType: 'image/png',
        data: new Uint8Array([1, 2, 3]),
      }),
    };
    const converted = convertContents(
      [{ uri: 'x://raw', mimeType: 'image/x-raw', blob: base64('raw pixels') }],
      createConverterRegistry([transcoder]),
    );
    expect(converted.sections).toStrictEqual([
      {
        kind: 'media',
        uri: 'x://raw',
        mimeType: 'image/png',
        mediaKind: 'image',
        bytes: 3,
        data: base64(new Uint8Array([1, 2, 3])),
      },
    ]);
  });

  it('a media converter that keeps the bytes ships the blob exactly as sent', () => {
    // 'QR==' decodes to "A" like 'QQ==' (base64 ignores the unused bits): the blob is not re-encoded.
    const converted = convertContents([{ uri: 'x://a.png', mimeType: 'image/png', blob: 'QR==' }]);
    expect(converted.sections[0]).toMatchObject({ kind: 'media', bytes: 1, data: 'QR==' });
  });
});
