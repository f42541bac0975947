import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type MediaType, parseMediaType } from '../../src/convert/media-type.js';
import { mimeTypeAllowed } from '../../src/convert/mime-type-pattern.js';
import { fuzzParameters } from '../support/fuzz-parameters.js';

const tokenCharacters = "!#$%&'*+.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-";
const token = fc.string({ unit: fc.constantFrom(...tokenCharacters), minLength: 1, maxLength: 10 });

/** Pieces of what servers put in `mimeType`: real types, parameters, quoting and junk. */
const pieces = [
  'text',
  'application',
  '/',
  '+json',
  '+',
  ';',
  '=',
  '"',
  '\\',
  ' ',
  '\t',
  'charset',
  'utf-8',
  'profile',
  'mcp-app',
  '*',
  ',',
  '__proto__',
  'TEXT/HTML',
  '\u0000',
  'é',
];
const mimeText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.array(fc.constantFrom(...pieces), { maxLength: 12 }).map((parts) => parts.join('')),
);

/** RFC 9110 §8.3.1: a parameter value is a token or a quoted-string (`\` escapes `"` and `\`). */
function formatMediaType(mediaType: MediaType): string {
  const parameters = Object.entries(mediaType.parameters).map(([name, value]) => {
    const bare = value !== '' && /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(value);
    return `; ${name}=${bare ? value : `"${value.replace(/["\\]/g, '\\$&')}"`}`;
  });
  return `${mediaType.essence}${parameters.join('')}`;
}

describe('fuzz: media types', () => {
  it('property: parsing never throws, and what parses has a lower-case token essence', () => {
    fc.assert(
      fc.property(mimeText, (text) => {
        const parsed = parseMediaType(text);
        if (parsed === undefined) return;
        expect(parsed.essence).toBe(`${parsed.type}/${parsed.subtype}`);
        expect(parsed.essence).toMatch(/^[!#$%&'*+.^_`|~0-9a-z-]+\/[!#$%&'*+.^_`|~0-9a-z-]+$/);
        if (parsed.suffix !== undefined) expect(parsed.subtype.endsWith(`+${parsed.suffix}`)).toBe(true);
      }),
      fuzzParameters(3000),
    );
  });

  it('property: a parsed type, formatted, parses to the same type', () => {
    fc.assert(
      fc.property(mimeText, (text) => {
        const parsed = parseMediaType(text);
        if (parsed === undefined) return;
        expect(parseMediaType(formatMediaType(parsed))).toEqual(parsed);
      }),
      fuzzParameters(3000),
    );
  });

  it('property: a formatted type (quoted values with ; " \\ and spaces included) parses to what was formatted', () => {
    fc.assert(
      fc.property(
        token,
        token,
        fc.dictionary(
          token.map((name) => name.toLowerCase()),
          fc.string({
            unit: fc.constantFrom('a', 'Z', '0', ' ', ';', '"', '\\', '=', ',', '/', 'é'),
            maxLength: 8,
          }),
          { maxKeys: 3 },
        ),
        (type, subtype, parameters) => {
          const essence = `${type}/${subtype}`.toLowerCase();
          const [lowerType = '', lowerSubtype = ''] = essence.split('/');
          const plus = lowerSubtype.lastIndexOf('+');
          const mediaType: MediaType = {
            essence,
            type: lowerType,
            subtype: lowerSubtype,
            ...(plus > 0 && { suffix: lowerSubtype.slice(plus + 1) }),
            parameters,
          };
          expect(parseMediaType(formatMediaType(mediaType))).toEqual(mediaType);
        },
      ),
      fuzzParameters(2000),
    );
  });

  it('property: matching against allowlist patterns never throws, and `*` admits everything', () => {
    fc.assert(
      fc.property(
        fc.option(mimeText, { nil: undefined }),
        fc.array(mimeText, { maxLength: 4 }),
        (mimeType, patterns) => {
          const allowed = mimeTypeAllowed(mimeType, patterns);
          expect(typeof allowed).toBe('boolean');
          expect(mimeTypeAllowed(mimeType, [...patterns, '*'])).toBe(true);
          expect(mimeTypeAllowed(mimeType, [])).toBe(false);
        },
      ),
      fuzzParameters(2000),
    );
  });
});
