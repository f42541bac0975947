import { describe, expect, it } from 'vitest';
import { ConverterRegistry } from '../../src/convert/converter-registry.js';
import { audioConverter } from '../../src/convert/converters/audio-converter.js';
import { binaryConverter } from '../../src/convert/converters/binary-converter.js';
import { csvConverter } from '../../src/convert/converters/csv-converter.js';
import { imageConverter } from '../../src/convert/converters/image-converter.js';
import { createJsonConverter, jsonConverter } from '../../src/convert/converters/json-converter.js';
import { markdownConverter } from '../../src/convert/converters/markdown-converter.js';
import { pdfConverter } from '../../src/convert/converters/pdf-converter.js';
import { plainTextConverter } from '../../src/convert/converters/plain-text-converter.js';
import { extensionOf, sourceCodeConverter } from '../../src/convert/converters/source-code-converter.js';
import { xmlConverter } from '../../src/convert/converters/xml-converter.js';
import { yamlConverter } from '../../src/convert/converters/yaml-converter.js';
import { parseMediaType } from '../../src/convert/media-type.js';
import { testConverterContract } from './converter-contract.js';

const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

testConverterContract({
  converter: plainTextConverter,
  sample: { mimeType: 'text/plain', uri: 'x://a.txt', content: 'hello' },
  expected: { kind: 'text', text: 'hello' },
});
testConverterContract({
  converter: markdownConverter,
  sample: { mimeType: 'text/markdown', uri: 'x://a.md', content: '# Setup' },
  expected: { kind: 'text', text: '# Setup' },
});
testConverterContract({
  converter: sourceCodeConverter,
  sample: { mimeType: 'text/x-python', uri: 'x://a.py', content: 'print(1)' },
  expected: { kind: 'text', text: '```python\nprint(1)\n```', pinnedLines: 1 },
});
testConverterContract({
  converter: jsonConverter,
  sample: { mimeType: 'application/json', uri: 'x://a', content: '{"a": 1}' },
  expected: { kind: 'text', text: '{"a":1}' },
});
testConverterContract({
  converter: yamlConverter,
  sample: { mimeType: 'application/yaml', uri: 'x://a', content: 'a: 1' },
  expected: { kind: 'text', text: 'a: 1' },
});
testConverterContract({
  converter: csvConverter,
  sample: { mimeType: 'text/csv', uri: 'x://a.csv', content: 'a,b\n1,2' },
  expected: { kind: 'text', text: 'a,b\n1,2', pinnedLines: 1 },
});
testConverterContract({
  converter: xmlConverter,
  sample: { mimeType: 'text/html', uri: 'x://a', content: '<p>hi</p>' },
  expected: { kind: 'text', text: '<p>hi</p>' },
});
testConverterContract({
  converter: imageConverter,
  sample: { mimeType: 'image/png', uri: 'x://a.png', content: png },
  expected: { kind: 'media', mediaKind: 'image', mimeType: 'image/png', data: png },
});
testConverterContract({
  converter: audioConverter,
  sample: { mimeType: 'audio/wav', uri: 'x://a.wav', content: png },
  expected: { kind: 'media', mediaKind: 'audio', mimeType: 'audio/wav', data: png },
});
testConverterContract({
  converter: pdfConverter,
  sample: { mimeType: 'application/pdf', uri: 'x://a.pdf', content: png },
  expected: { kind: 'media', mediaKind: 'document', mimeType: 'application/pdf', data: png },
});
testConverterContract({
  converter: binaryConverter,
  sample: { mimeType: 'application/zip', uri: 'x://a.zip', content: png },
  expected: { kind: 'omitted', reason: 'binary content is not converted to text' },
});

const text = (converter: typeof plainTextConverter, value: string, mimeType: string, uri = 'x://a') => {
  const mediaType = parseMediaType(mimeType);
  return converter.convert({ uri, mimeType, text: value, ...(mediaType && { mediaType }) });
};

describe('converters by family', () => {
  it('json: compacts valid JSON by default and pretty-prints by option', () => {
    expect(text(jsonConverter, '{ "a": [1, 2] }', 'application/json')).toEqual({
      kind: 'text',
      text: '{"a":[1,2]}',
    });
    expect(text(createJsonConverter({ format: 'pretty' }), '{"a":1}', 'application/json')).toEqual({
      kind: 'text',
      text: '{\n  "a": 1\n}',
    });
    expect(text(createJsonConverter({ format: 'preserve' }), '{ "a":1 }', 'application/json')).toEqual({
      kind: 'text',
      text: '{ "a":1 }',
    });
  });

  it('json: invalid JSON is kept as text and flagged', () => {
    expect(text(jsonConverter, '{"a": ', 'application/vnd.api+json')).toEqual({
      kind: 'text',
      text: '{"a": ',
      notes: ['labelled application/vnd.api+json but not valid JSON; shown as sent'],
    });
  });

  it('json: an unknown format option is refused, naming it', () => {
    expect(() => createJsonConverter({ format: 'tiny' as 'compact' })).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTION', field: 'format', value: 'tiny' }),
    );
  });

  it('source code: fenced with the language of its media type or extension, and the fence cannot be closed from inside', () => {
    expect(text(sourceCodeConverter, 'x = 1', 'text/x-python')).toEqual({
      kind: 'text',
      text: '```python\nx = 1\n```',
      pinnedLines: 1,
    });
    expect(text(sourceCodeConverter, 'let a = 1;', 'text/plain', 'x://src/app.ts?rev=2')).toMatchObject({
      text: '```typescript\nlet a = 1;\n```',
    });
    const tricky = text(sourceCodeConverter, 'a\n````\nb', 'text/javascript');
    expect(tricky).toMatchObject({ text: '`````javascript\na\n````\nb\n`````' });
  });

  it('csv and tsv: the header row is pinned', () => {
    expect(text(csvConverter, 'a,b\n1,2', 'text/csv')).toEqual({
      kind: 'text',
      text: 'a,b\n1,2',
      pinnedLines: 1,
    });
    expect(text(csvConverter, 'a\tb\n1\t2', 'text/tab-separated-values')).toMatchObject({ pinnedLines: 1 });
  });

  it('markdown, yaml, xml and html go in as written', () => {
    expect(text(markdownConverter, '# T', 'text/markdown')).toEqual({ kind: 'text', text: '# T' });
    expect(text(yamlConverter, 'a: 1', 'text/yaml')).toEqual({ kind: 'text', text: 'a: 1' });
    expect(text(xmlConverter, '<a/>', 'application/atom+xml')).toEqual({ kind: 'text', text: '<a/>' });
    expect(text(xmlConverter, '<p>x</p>', 'text/html')).toEqual({ kind: 'text', text: '<p>x</p>' });
  });

  it('image, audio and pdf become media parts; other binary is omitted with a reason', () => {
    const mediaType = parseMediaType('image/png');
    expect(
      imageConverter.convert({
        uri: 'x://a',
        mimeType: 'image/png',
        data: png,
        ...(mediaType && { mediaType }),
      }),
    ).toEqual({
      kind: 'media',
      mediaKind: 'image',
      mimeType: 'image/png',
      data: png,
    });
    expect(audioConverter.convert({ uri: 'x://a', mimeType: 'audio/mpeg', data: png })).toMatchObject({
      mediaKind: 'audio',
    });
    expect(pdfConverter.convert({ uri: 'x://a', mimeType: 'application/pdf', data: png })).toMatchObject({
      mediaKind: 'document',
    });
    expect(binaryConverter.convert({ uri: 'x://a', mimeType: 'application/zip', data: png })).toEqual({
      kind: 'omitted',
      reason: 'binary content is not converted to text',
    });
  });
});

describe('converters: declared types and details', () => {
  it('json: a converter made by createJsonConverter claims application/json, text/json, +json and its extensions, as text', () => {
    const json = createJsonConverter({ format: 'pretty' });
    expect(json).toMatchObject({ name: 'json', input: 'text' });
    const registry = new ConverterRegistry([json]);
    const nameOf = (mimeType: string | undefined, uri = 'x://a') =>
      registry.find(parseMediaType(mimeType), uri).name;
    expect(nameOf('application/json')).toBe('json');
    expect(nameOf('text/json')).toBe('json');
    expect(nameOf('application/geo+json')).toBe('json');
    expect(nameOf(undefined, 'x://a.json')).toBe('json');
    expect(nameOf(undefined, 'x://a.jsonc')).toBe('json');
    expect(nameOf('text/plain', 'x://a.json5')).toBe('json');
    expect(nameOf('application/jsonx')).toBe('binary');
  });

  it('json: an unknown format is refused with a message that names the choices', () => {
    expect(() => createJsonConverter({ format: 'tiny' as 'compact' })).toThrow(
      'format must be compact, pretty or preserve (got tiny)',
    );
  });

  it('csv: a single line pins nothing', () => {
    expect(text(csvConverter, 'a,b', 'text/csv')).toStrictEqual({ kind: 'text', text: 'a,b' });
  });

  it('source code: no language known from type or extension gives a bare fence', () => {
    expect(text(sourceCodeConverter, 'x', 'text/plain', 'x://a.unknown')).toEqual({
      kind: 'text',
      text: '```\nx\n```',
      pinnedLines: 1,
    });
  });

  it('image and audio name the parsed essence, without parameters; the raw type when none was parsed', () => {
    for (const [converter, mimeType, essence] of [
      [imageConverter, 'IMAGE/PNG; name=a', 'image/png'],
      [audioConverter, 'Audio/MPEG; rate=44100', 'audio/mpeg'],
    ] as const) {
      const mediaType = parseMediaType(mimeType);
      expect(
        converter.convert({ uri: 'x://a', mimeType, data: png, ...(mediaType && { mediaType }) }),
      ).toMatchObject({ mimeType: essence });
      expect(converter.convert({ uri: 'x://a', mimeType, data: png })).toMatchObject({ mimeType });
    }
  });
});

describe('extensionOf', () => {
  it.each([
    ['x://src/app.ts', 'ts'],
    ['x://src/App.TS', 'ts'],
    ['x://src/app.ts?rev=1.py#part.rb', 'ts'],
    ['x://src/app.ts#section.md', 'ts'],
    ['x://src/archive.tar.gz', 'gz'],
    ['x://dir/.env', ''],
    ['x://dir.v2/readme', ''],
    ['x://dir/readme', ''],
    ['readme.', ''],
    ['x://dir/file.md/', ''],
  ])('%s → "%s"', (uri, extension) => {
    expect(extensionOf(uri)).toBe(extension);
  });
});
