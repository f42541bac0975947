import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeFrameTags } from '../../src/render/frame-element.js';
import { escapeUntrustedText } from '../../src/render/frame-resource.js';
import { neutralizeText } from '../../src/render/neutralize-text.js';
import { escapingPieces as pieces } from '../support/escaping-pieces.js';
import { fuzzParameters } from '../support/fuzz-parameters.js';

// The escaping rule as it was first written: one regular-expression replace per pass over the
// whole text. The searches that replaced it must give exactly these bytes for every input.
const controls = '\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f';
const bidi = '\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069\\u2028\\u2029';
const unsafe = new RegExp(`[${controls}${bidi}]|\\r(?!\\n)|<\\|(?=[^|<>\\s]{1,64}\\|>)|\\\\(?=u\\{)`, 'gu');
const referenceNeutralize = (text: string) =>
  text.replace(unsafe, (match) =>
    match === '<|' ? '<\\u{7c}' : `\\u{${(match.codePointAt(0) ?? 0).toString(16)}}`,
  );
const referenceTags = (text: string, tag: string) =>
  text.replace(new RegExp(`<(\\s*)(/?)(\\s*)${tag}`, 'gi'), `&lt;$1$2$3${tag}`);

const adversarial = fc.oneof(
  fc.array(fc.constantFrom(...pieces), { maxLength: 40 }).map((parts) => parts.join('')),
  fc.string({ unit: 'binary', maxLength: 80 }),
  fc.string({
    unit: fc.constantFrom('<', '|', '/', ' ', '\n', '\r', '\\', 'u', '{', 'm', 'x', '>'),
    maxLength: 80,
  }),
  // Markup dense with `<`, where escaping frame tags switches to one scan part-way.
  fc
    .array(fc.constantFrom('<b>', '</p>', '<', ' ', 'x', '\n', '</MCP-resource >', '< mcp-resource', '<|'), {
      minLength: 10,
      maxLength: 120,
    })
    .map((parts) => parts.join('')),
  // Long runs on either side of a match, so searches resume far from where they started.
  fc
    .tuple(fc.nat(3000), fc.constantFrom(...pieces), fc.nat(3000), fc.constantFrom(' ', 'a', '\n', '\r\n'))
    .map(([before, piece, after, filler]) => filler.repeat(before) + piece + filler.repeat(after)),
);

describe('fuzz: escaping by quick searches gives the bytes of the one-replace rule', () => {
  it('property: neutralizeText, escapeFrameTags and escapeUntrustedText equal their one-replace definitions', () => {
    fc.assert(
      fc.property(adversarial, (text) => {
        expect(neutralizeText(text)).toBe(referenceNeutralize(text));
        expect(escapeFrameTags(text, 'mcp-resource')).toBe(referenceTags(text, 'mcp-resource'));
        expect(escapeFrameTags(text, 'mcp-server-instructions')).toBe(
          referenceTags(text, 'mcp-server-instructions'),
        );
        // Every tag of ours, whichever frame the text goes into.
        expect(escapeUntrustedText(text)).toBe(
          referenceTags(referenceTags(referenceNeutralize(text), 'mcp-resource'), 'mcp-server-instructions'),
        );
      }),
      fuzzParameters(3000),
    );
  });
});
