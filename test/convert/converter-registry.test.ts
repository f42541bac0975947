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

describe('ConverterRegistry: keys, validation and revision (each registry built inside its test)', () => {
  const textConverter = (name: string, mediaTypes: string[], extensions?: string[]): Converter => ({
    name,
    mediaTypes,
    ...(extensions && { extensions }),
    input: 'text',
    convert: ({ text = '' }) => ({ kind: 'text', text }),
  });
  const nameOf = (registry: ConverterRegistry, mimeType: string | undefined, uri = 'x://a') =>
    registry.find(parseMediaType(mimeType), uri).name;

  it('an exact essence, a type/* family and a +suffix are three kinds of key, case-insensitive', () => {
    const registry = new ConverterRegistry([
      textConverter('exact', ['Text/X-Exact']),
      textConverter('family', ['Model/*']),
      textConverter('suffix', ['+Cbor']),
    ]);
    expect(nameOf(registry, 'text/x-exact; a=b')).toBe('exact');
    expect(nameOf(registry, 'model/gltf+json')).toBe('family');
    expect(nameOf(registry, 'application/x+cbor')).toBe('suffix');
    expect(nameOf(registry, 'text/x-other')).toBe('binary');
    expect(nameOf(registry, 'modelx/a')).toBe('binary');
    expect(nameOf(registry, 'application/cbor')).toBe('binary');
  });

  it('the exact essence wins over the family, and the family over the suffix', () => {
    const registry = new ConverterRegistry([
      textConverter('suffix', ['+json']),
      textConverter('family', ['application/*']),
      textConverter('exact', ['application/ld+json']),
    ]);
    expect(nameOf(registry, 'application/ld+json')).toBe('exact');
    expect(nameOf(registry, 'application/geo+json')).toBe('family');
    expect(nameOf(registry, 'text/x+json')).toBe('suffix');
  });

  it('the media type decides when it is specific, whatever the extension', () => {
    expect(nameOf(new ConverterRegistry(), 'text/csv', 'x://notes/readme.md')).toBe('csv');
  });

  it('without a media type the extension decides, binary converters included; without either, the fallback', () => {
    const registry = new ConverterRegistry();
    expect(nameOf(registry, undefined, 'x://logo.png')).toBe('image');
    expect(nameOf(registry, undefined, 'x://data.csv')).toBe('csv');
    expect(nameOf(registry, undefined, 'x://no-extension')).toBe('binary');
    expect(nameOf(registry, 'not a type', 'x://no-extension')).toBe('binary');
  });

  it('extensions are matched case-insensitively, as declared and as in the URI', () => {
    const registry = new ConverterRegistry([textConverter('upper', ['text/x-upper'], ['UPR'])]);
    expect(nameOf(registry, undefined, 'x://a.upr')).toBe('upper');
    expect(nameOf(registry, 'text/plain', 'x://A.UPR')).toBe('upper');
  });

  it('a custom fallback takes what nothing else claims', () => {
    const registry = new ConverterRegistry([], textConverter('everything', ['application/x-everything']));
    expect(nameOf(registry, 'image/png')).toBe('everything');
    expect(nameOf(registry, undefined)).toBe('everything');
  });

  it('the revision counts registrations, the fallback first', () => {
    const registry = new ConverterRegistry([]);
    expect(registry.revision).toBe(1);
    registry.register(textConverter('a', ['text/x-a'])).register(textConverter('b', ['text/x-b']));
    expect(registry.revision).toBe(3);
    expect(new ConverterRegistry().revision).toBe(11);
  });

  it('createConverterRegistry() without converters has the defaults', () => {
    const registry = createConverterRegistry();
    expect(nameOf(registry, 'text/csv')).toBe('csv');
    expect(registry.revision).toBe(11);
  });

  it.each([
    ['nothing', undefined, undefined],
    ['no convert()', { name: 'no-convert', mediaTypes: ['text/x-a'], input: 'text' }, 'no-convert'],
    [
      'mediaTypes that are not a list',
      { name: 'one-type', mediaTypes: 'text/x-a', input: 'text', convert: () => ({}) },
      'one-type',
    ],
  ])('register() refuses %s, naming the converter', (_, converter, value) => {
    expect(() => new ConverterRegistry([]).register(converter as unknown as Converter)).toThrow(
      expect.objectContaining({
        code: 'INVALID_OPTION',
        message: 'a converter needs name, mediaTypes, input and convert()',
        field: 'converter',
        value,
      }),
    );
  });

  it.each(['json', 'text/plain/extra', '/plain', 'text/'])(
    'register() refuses the pattern "%s", naming the field and the pattern',
    (pattern) => {
      expect(() => new ConverterRegistry([]).register(textConverter('broken', [pattern]))).toThrow(
        expect.objectContaining({
          code: 'INVALID_OPTION',
          message: `"${pattern}" is not a media type, family or suffix`,
          field: 'broken.mediaTypes',
          value: pattern,
        }),
      );
    },
  );
});
