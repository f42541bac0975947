import { describe, expect, it } from 'vitest';
import { fileNameOf, mediaPartsOf, unsupportedPartText } from '../../src/render/media-parts-of.js';
import type { ContextBlock, MediaPart } from '../../src/types.js';

const part = (uri: string, kind: MediaPart['kind'] = 'document'): MediaPart => ({
  kind,
  uri,
  mimeType: 'application/pdf',
  data: 'JVBERi0=',
  bytes: 5,
});
const provenance = {
  scope: 'pipeline' as const,
  server: 'docs',
  uri: 'docs://a',
  mimeType: 'application/pdf',
  sha256: 'a'.repeat(64),
  truncated: false,
};

describe('fileNameOf', () => {
  it.each([
    ['docs://specs/v2/spec.pdf', 'spec.pdf'],
    ['docs://specs/spec.pdf?version=2/draft', 'spec.pdf'],
    ['docs://specs/spec.pdf#page=3/4', 'spec.pdf'],
    ['docs://specs/spec.pdf?a\nb/c', 'spec.pdf'],
    ['spec.pdf', 'spec.pdf'],
  ])('%j is named %j: the last path segment, without query or fragment', (uri, name) => {
    expect(fileNameOf(part(uri))).toBe(name);
  });

  it('a URI ending in a slash is named by the part’s kind', () => {
    expect(fileNameOf(part('docs://specs/'))).toBe('document');
    expect(fileNameOf(part('docs://images/?x=1', 'image'))).toBe('image');
  });
});

describe('unsupportedPartText', () => {
  it('names kind, uri, media type, size and the format that refused it', () => {
    expect(unsupportedPartText(part('docs://a.pdf'), 'Format X')).toBe(
      '[document docs://a.pdf (application/pdf, 5 bytes) not sent: Format X does not accept it]',
    );
  });
});

describe('mediaPartsOf', () => {
  it('every resource block’s parts, in block order; blocks without parts add none', () => {
    const blocks: ContextBlock[] = [
      { kind: 'preamble', text: 'P' },
      { kind: 'resource', text: 'a', provenance, parts: [part('docs://1.pdf'), part('docs://2.pdf')] },
      { kind: 'instructions', text: 'I' },
      { kind: 'resource', text: 'b', provenance },
      { kind: 'resource', text: 'c', provenance, parts: [part('docs://3.pdf')] },
    ];
    expect(mediaPartsOf(blocks).map((item) => item.uri)).toEqual([
      'docs://1.pdf',
      'docs://2.pdf',
      'docs://3.pdf',
    ]);
    expect(mediaPartsOf([])).toEqual([]);
  });
});
