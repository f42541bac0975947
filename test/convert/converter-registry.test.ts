import { describe, expect, it } from 'vitest';
import type { Converter } from '../../src/convert/converter.js';
import { ConverterRegistry, createConverterRegistry } from '../../src/convert/converter-registry.js';
import { parseMediaType } from '../../src/convert/media-type.js';

const registry = new ConverterRegistry();
const find = (mimeType: string | undefined, uri = 'x://a') =>
  registry.find(parseMediaType(mimeType), uri).name;

describe('ConverterRegistry', () => {
  it('matches the exact essence first, then the type/* family, then the +suffix, then the binary fallback', () => {
    expect(find('text/csv; charset=utf-8')).toBe('csv');
    expect(find('text/x-unknown')).toBe('plain-text');
    expect(find('application/vnd.api+json')).toBe('json');
    expect(find('application/rss+xml')).toBe('xml');
    expect(find('image/svg+xml')).toBe('xml');
    expect(find('image/bmp')).toBe('binary');
    expect(find('application/zip')).toBe('binary');
    expect(find('audio/ogg')).toBe('audio');
  });

  it('never matches by substring', () => {
    expect(find('application/jsonl-weird')).toBe('binary');
    expect(find('application/x-not-json')).toBe('binary');
  });

  it('consults the URI extension when the media type is missing or generic, within the same kind', () => {
    expect(find(undefined, 'x://src/app.ts')).toBe('source-code');
    expect(find('text/plain', 'x://notes/readme.md')).toBe('markdown');
    expect(find('application/octet-stream', 'x://logo.png')).toBe('image');
    // A generic binary type never becomes text by extension, nor generic text an image.
    expect(find('application/octet-stream', 'x://app.ts')).toBe('binary');
    expect(find('text/plain', 'x://logo.png')).toBe('plain-text');
  });

  it('a registered converter wins over the built-in one for its media types', () => {
    const custom: Converter = {
      name: 'custom-csv',
      mediaTypes: ['text/csv'],
      input: 'text',
      convert: ({ text = '' }) => ({ kind: 'text', text: text.toUpperCase() }),
    };
    expect(createConverterRegistry([custom]).find(parseMediaType('text/csv'), 'x://a').name).toBe(
      'custom-csv',
    );
  });

  it('refuses a media type pattern that is not a type, a family or a suffix', () => {
    const broken = {
      name: 'broken',
      mediaTypes: ['json'],
      input: 'text',
      convert: () => ({ kind: 'omitted', reason: 'x' }),
    };
    expect(() => new ConverterRegistry([broken as Converter])).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTION', value: 'json' }),
    );
  });
});
