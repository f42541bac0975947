import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Converter, ConverterInput, ConverterOutput } from '../../src/convert/converter.js';
import { parseMediaType } from '../../src/convert/media-type.js';
import { fuzzParameters } from '../support/fuzz-parameters.js';

export interface ConverterContractOptions {
  readonly converter: Converter;
  /** A typical item of the converter's family. */
  readonly sample: { readonly mimeType: string; readonly uri: string; readonly content: string | Uint8Array };
  /** What the sample converts to, exactly. */
  readonly expected: ConverterOutput;
}

/** The behaviour every converter shares, built-in or registered by a user. */
export function testConverterContract({ converter, sample, expected }: ConverterContractOptions): void {
  const inputOf = (content: string | Uint8Array, mimeType = sample.mimeType): ConverterInput => {
    const mediaType = parseMediaType(mimeType);
    return {
      uri: sample.uri,
      mimeType,
      ...(mediaType && { mediaType }),
      ...(typeof content === 'string' ? { text: content } : { data: content }),
    };
  };

  describe(`converter contract: ${converter.name}`, () => {
    it('declares a name, parseable media type patterns and its input kind', () => {
      expect(converter.name).toMatch(/^[a-z][a-z-]*$/);
      expect(converter.mediaTypes.length).toBeGreaterThan(0);
      for (const pattern of converter.mediaTypes) {
        if (pattern.startsWith('+')) expect(pattern).toMatch(/^\+[a-z0-9.-]+$/);
        else expect(parseMediaType(pattern.replace(/\/\*$/, '/x-any'))).toBeDefined();
      }
      expect(['text', 'binary']).toContain(converter.input);
    });

    it('converts its sample into exactly the text, media part or reasoned omission expected', () => {
      expect(converter.convert(inputOf(sample.content))).toEqual(expected);
    });

    it('treats missing content as empty: no text is the empty string, no bytes an empty array', () => {
      const { text: _text, data: _data, ...withoutContent } = inputOf(sample.content);
      const empty = converter.input === 'text' ? '' : new Uint8Array(0);
      expect(converter.convert(withoutContent)).toEqual(converter.convert(inputOf(empty)));
    });

    it('is deterministic: the same input gives the same output', () => {
      expect(converter.convert(inputOf(sample.content))).toEqual(converter.convert(inputOf(sample.content)));
    });

    it('never throws and never invents replacement characters, whatever the content', () => {
      const content =
        converter.input === 'text'
          ? fc.string({ unit: 'grapheme', maxLength: 200 })
          : fc.uint8Array({ minLength: 1, maxLength: 200 });
      // A replacement character the content already held may pass through; none may be added.
      const replacements = (text: string) => text.split('\uFFFD').length - 1;
      fc.assert(
        fc.property(content, (value) => {
          const output = converter.convert(inputOf(value as string | Uint8Array));
          const held = typeof value === 'string' ? replacements(value) : 0;
          if (output.kind === 'text') expect(replacements(output.text)).toBeLessThanOrEqual(held);
        }),
        fuzzParameters(50),
      );
    });
  });
}
