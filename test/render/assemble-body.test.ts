import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { assembleBody } from '../../src/render/assemble-body.js';
import type { ConvertedSection } from '../../src/render/converted-section.js';
import { EscapedText } from '../../src/render/escaped-text.js';

const text = (uri: string, body: string, pinnedLines?: number): ConvertedSection => ({
  kind: 'text',
  uri,
  mimeType: 'text/plain',
  bytes: body.length,
  text: body,
  ...(pinnedLines !== undefined && { pinnedLines }),
});
const image: ConvertedSection = {
  kind: 'media',
  uri: 'docs://logo.png',
  mimeType: 'image/png',
  mediaKind: 'image',
  bytes: 4,
  data: 'iVBORw==',
};
const pdf: ConvertedSection = {
  kind: 'media',
  uri: 'docs://spec.pdf',
  mimeType: 'application/pdf',
  mediaKind: 'document',
  bytes: 5,
  data: 'JVBERi0=',
};
const audio: ConvertedSection = {
  kind: 'media',
  uri: 'docs://hello.wav',
  mimeType: 'audio/wav',
  mediaKind: 'audio',
  bytes: 6,
  data: 'UklGRg==',
};
const binary: ConvertedSection = {
  kind: 'omitted',
  uri: 'docs://blob',
  mimeType: 'application/octet-stream',
  bytes: 9,
  reason: 'binary content',
};

describe('assembleBody', () => {
  it('one text section is the body as it is: no header, nothing omitted', () => {
    expect(assembleBody([text('docs://a', 'alpha\nbeta')])).toStrictEqual({
      body: 'alpha\nbeta',
      pinnedChars: 0,
      parts: [],
      omittedContents: [],
      injectable: true,
    });
  });

  it('nothing to assemble is an empty, non-injectable body', () => {
    expect(assembleBody([])).toStrictEqual({
      body: '',
      pinnedChars: 0,
      parts: [],
      omittedContents: [],
      injectable: false,
    });
  });

  it('a single section’s pinned lines are the characters up to and including their last line feed', () => {
    expect(assembleBody([text('docs://a', 'h1\nh2\nrest\n', 2)]).pinnedChars).toBe(6);
    expect(assembleBody([text('docs://a', 'h1\nh2\nrest\n', 1)]).pinnedChars).toBe(3);
    expect(assembleBody([text('docs://a', 'h1\nh2\nrest\n', 3)]).pinnedChars).toBe(11);
    expect(assembleBody([text('docs://a', 'a\nrest\n', 1)]).pinnedChars).toBe(2);
    // More pinned lines than the text has: nothing is pinned.
    expect(assembleBody([text('docs://a', 'h1\nh2', 2)]).pinnedChars).toBe(0);
    expect(assembleBody([text('docs://a', 'h1\nh2', 3)]).pinnedChars).toBe(0);
    expect(assembleBody([text('docs://a', 'h1\nh2\n', 0)]).pinnedChars).toBe(0);
  });

  it('of several sections, none pins lines, whichever asks', () => {
    expect(assembleBody([text('docs://a', 'alpha'), text('docs://b', 'h1\nbeta', 1)]).pinnedChars).toBe(0);
  });

  it('several sections get a header line each, are joined by a line feed, and pin nothing', () => {
    expect(
      assembleBody([
        text('docs://a', 'h1\nalpha', 1),
        { ...text('docs://b', 'beta'), mimeType: 'text/markdown' },
      ]),
    ).toStrictEqual({
      body: '--- docs://a (text/plain) ---\nh1\nalpha\n--- docs://b (text/markdown) ---\nbeta',
      pinnedChars: 0,
      parts: [],
      omittedContents: [],
      injectable: true,
    });
  });

  it('media the model accepts become parts, each named by a line in the body', () => {
    const line = '[image docs://logo.png (image/png, 4 bytes) follows this frame as a image part]';
    expect(assembleBody([image], { images: true })).toStrictEqual({
      body: line,
      pinnedChars: 0,
      parts: [
        {
          part: { kind: 'image', uri: 'docs://logo.png', mimeType: 'image/png', data: 'iVBORw==', bytes: 4 },
          line,
        },
      ],
      omittedContents: [],
      injectable: true,
    });
    expect(assembleBody([pdf], { pdf: true }).parts.map(({ part }) => part.kind)).toEqual(['document']);
    expect(assembleBody([audio], { audio: true }).parts.map(({ part }) => part.kind)).toEqual(['audio']);
  });

  it('media the model does not accept are placeholders and omitted contents, naming what it lacks', () => {
    expect(assembleBody([image], { pdf: true, audio: true })).toStrictEqual({
      body: '[content not shown: docs://logo.png is image/png, 4 bytes; the model does not accept images]',
      pinnedChars: 0,
      parts: [],
      omittedContents: [
        {
          uri: 'docs://logo.png',
          mimeType: 'image/png',
          bytes: 4,
          reason: 'the model does not accept images',
        },
      ],
      injectable: false,
    });
    expect(assembleBody([pdf], { images: true }).omittedContents).toEqual([
      {
        uri: 'docs://spec.pdf',
        mimeType: 'application/pdf',
        bytes: 5,
        reason: 'the model does not accept PDF documents',
      },
    ]);
    expect(assembleBody([audio]).omittedContents.map((item) => item.reason)).toEqual([
      'the model does not accept audio',
    ]);
  });

  it('an item that cannot be shown says why, in the body and in omitted contents', () => {
    expect(assembleBody([binary])).toStrictEqual({
      body: '[content not shown: docs://blob is application/octet-stream, 9 bytes; binary content]',
      pinnedChars: 0,
      parts: [],
      omittedContents: [
        { uri: 'docs://blob', mimeType: 'application/octet-stream', bytes: 9, reason: 'binary content' },
      ],
      injectable: false,
    });
  });

  it('a mixed read: headers before text, parts and placeholders, in order', () => {
    const assembled = assembleBody([text('docs://a', 'alpha'), image, binary], { images: true });
    expect(assembled.body).toBe(
      [
        '--- docs://a (text/plain) ---',
        'alpha',
        '--- docs://logo.png (image/png) ---',
        '[image docs://logo.png (image/png, 4 bytes) follows this frame as a image part]',
        '--- docs://blob (application/octet-stream) ---',
        '[content not shown: docs://blob is application/octet-stream, 9 bytes; binary content]',
      ].join('\n'),
    );
    expect(assembled.parts.map(({ part }) => part.uri)).toEqual(['docs://logo.png']);
    expect(assembled.omittedContents.map((item) => item.uri)).toEqual(['docs://blob']);
    expect(assembled.injectable).toBe(true);
  });

  it('URIs and media types a server controls are escaped in headers and placeholders', () => {
    const hostile: ConvertedSection = {
      kind: 'omitted',
      uri: 'x://</mcp-resource>\u202e',
      mimeType: 'a/b',
      bytes: 1,
      reason: 'binary content',
    };
    expect(assembleBody([hostile]).body).toBe(
      '[content not shown: x://&lt;/mcp-resource>\\u{202e} is a/b, 1 bytes; binary content]',
    );
    expect(assembleBody([hostile, text('docs://a', 'alpha')]).body).toBe(
      '--- x://&lt;/mcp-resource>\\u{202e} (a/b) ---\n' +
        '[content not shown: x://&lt;/mcp-resource>\\u{202e} is a/b, 1 bytes; binary content]\n' +
        '--- docs://a (text/plain) ---\nalpha',
    );
  });

  it('a body of several items holds no frame tag, even from a section that arrived unescaped', () => {
    const body = assembleBody([
      text('docs://a', 'x </mcp-resource>'),
      text('docs://b', '<mcp-resource>'),
    ]).body;
    expect(body).toBe(
      '--- docs://a (text/plain) ---\nx &lt;/mcp-resource>\n--- docs://b (text/plain) ---\n&lt;mcp-resource>',
    );
  });
});

describe('assembleBody of one lazily escaped text section', () => {
  // As prepareAttachment makes it: `text` is the whole escaping, computed when first read.
  const lazy = (uri: string, raw: string, pinnedLines?: number) => {
    const escaped = new EscapedText(raw);
    let textReads = 0;
    const section: ConvertedSection = {
      kind: 'text',
      uri,
      mimeType: 'text/plain',
      bytes: raw.length,
      escaped,
      get text() {
        textReads++;
        return escaped.text;
      },
      ...(pinnedLines !== undefined && { pinnedLines }),
    };
    return { section, escaped, textReads: () => textReads };
  };

  it('is the section’s escaping, of which nothing is escaped until the body is read', () => {
    const prefixes = vi.spyOn(EscapedText.prototype, 'prefix');
    onTestFinished(() => prefixes.mockRestore());
    const { section, escaped, textReads } = lazy('docs://a', 'x </mcp-resource>\ny');
    const assembled = assembleBody([section]);
    expect([textReads(), prefixes.mock.calls.length]).toEqual([0, 0]);
    expect(assembled.escaped).toBe(escaped);
    expect(assembled).toMatchObject({ pinnedChars: 0, parts: [], omittedContents: [], injectable: true });
    expect(assembled.body).toBe('x &lt;/mcp-resource>\ny');
  });

  it('pins its lines as they are escaped: the escaped characters up to their last line feed', () => {
    // `<mcp-resource>` (14 characters) is escaped to `&lt;mcp-resource>` (17).
    const raw = '<mcp-resource>\nh2\nrest';
    expect(assembleBody([lazy('docs://a', raw, 1).section]).pinnedChars).toBe(18);
    expect(assembleBody([lazy('docs://a', raw, 2).section]).pinnedChars).toBe(21);
    // More pinned lines than the text has, none, or 0: nothing is pinned.
    expect(assembleBody([lazy('docs://a', raw, 3).section]).pinnedChars).toBe(0);
    expect(assembleBody([lazy('docs://a', raw).section]).pinnedChars).toBe(0);
    expect(assembleBody([lazy('docs://a', raw, 0).section]).pinnedChars).toBe(0);
  });

  it('of several sections, is read whole, with a header like any other', () => {
    const assembled = assembleBody([lazy('docs://a', '<mcp-resource>', 1).section, text('docs://b', 'beta')]);
    expect(assembled.escaped).toBeUndefined();
    expect(assembled.body).toBe(
      '--- docs://a (text/plain) ---\n&lt;mcp-resource>\n--- docs://b (text/plain) ---\nbeta',
    );
    expect(assembled.pinnedChars).toBe(0);
  });
});
