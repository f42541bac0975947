import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isSafeBoundary } from '../../src/budget/find-safe-boundary.js';
import { EscapedText, isCleanCut } from '../../src/render/escaped-text.js';
import { escapeUntrustedText } from '../../src/render/frame-resource.js';
import { escapingPieces } from '../support/escaping-pieces.js';
import { fuzzParameters } from '../support/fuzz-parameters.js';

// Lines of the escaping rule's edge pieces: clean cuts need newlines, and the pieces put frame
// tags, special tokens, lone returns and whitespace runs on either side of them.
const lined = fc
  .array(fc.constantFrom(...escapingPieces, '\n', '\n', '\n', '\n/', '\n ', '<\n', '< \n/'), {
    maxLength: 60,
  })
  .map((parts) => parts.join(''));

describe('fuzz: escaping a text in parts cut at clean cuts gives the whole text escaped', () => {
  it('property: at every clean cut, both sides escaped apart join to the whole escaped, at a piece boundary', () => {
    fc.assert(
      fc.property(lined, (raw) => {
        const whole = escapeUntrustedText(raw);
        for (let at = 0; at <= raw.length; at++) {
          if (!isCleanCut(raw, at)) continue;
          const head = escapeUntrustedText(raw.slice(0, at));
          expect(head + escapeUntrustedText(raw.slice(at))).toBe(whole);
          expect(isSafeBoundary(whole, head.length)).toBe(true);
        }
      }),
      fuzzParameters(1500),
    );
  });

  it('property: EscapedText gives prefixes of the whole escaped text, covering what was asked, and the whole', () => {
    fc.assert(
      fc.property(lined, fc.array(fc.nat(80), { maxLength: 6 }), (raw, asks) => {
        const whole = escapeUntrustedText(raw);
        const escaped = new EscapedText(raw);
        let longest = 0;
        for (const ask of asks) {
          const shown = escaped.prefix(ask);
          expect(whole.startsWith(shown.text)).toBe(true);
          expect(shown.whole).toBe(shown.text.length === whole.length && shown.text === whole);
          // What was shown before is never taken back.
          expect(shown.text.length).toBeGreaterThanOrEqual(longest);
          longest = shown.text.length;
          if (!shown.whole) {
            // It covers `ask` raw characters: escaping only lengthens text.
            expect(shown.text.length).toBeGreaterThanOrEqual(Math.min(ask, raw.length));
            expect(isSafeBoundary(whole, shown.text.length)).toBe(true);
          }
        }
        expect(escaped.text).toBe(whole);
        expect(escaped.prefix(0)).toEqual({ text: whole, whole: true, rawChars: raw.length });
      }),
      fuzzParameters(1500),
    );
  });
});

describe('EscapedText', () => {
  const line = 'checkout validates the cart <|endoftext|> and </mcp-resource> stays inside\n';

  it('escapes only as far as asked, then the rest once the whole is read', () => {
    const raw = line.repeat(1000);
    const escaped = new EscapedText(raw);
    const shown = escaped.prefix(200);
    expect(shown.whole).toBe(false);
    // Three lines cover 200 characters; the cut is the line end after them.
    expect(shown.text).toBe(escapeUntrustedText(line.repeat(3)));
    expect(escaped.text).toBe(escapeUntrustedText(raw));
    expect(escaped.prefix(200)).toEqual({
      text: escapeUntrustedText(raw),
      whole: true,
      rawChars: raw.length,
    });
  });

  it('is the raw text itself, or a view of it, where escaping changes nothing', () => {
    const raw = 'plain line\n'.repeat(100);
    const escaped = new EscapedText(raw);
    expect(escaped.prefix(30).text).toBe('plain line\n'.repeat(3));
    expect(escaped.text).toBe(raw);
  });

  it('does not cut after a line that ends inside a frame tag, nor before an indented or slash line', () => {
    expect(isCleanCut('a\nb', 2)).toBe(true);
    expect(isCleanCut('<\nb', 2)).toBe(false);
    expect(isCleanCut('< /\n  \nb', 7)).toBe(false);
    expect(isCleanCut('<x \n b', 5)).toBe(false);
    expect(isCleanCut('<x \nb', 4)).toBe(true);
    expect(isCleanCut('a\n b', 2)).toBe(false);
    expect(isCleanCut('a\n/b', 2)).toBe(false);
    expect(isCleanCut('a\r\nb', 3)).toBe(true);
    expect(isCleanCut('ab', 1)).toBe(false);
    // The frame tag the rule escapes across the line end: "<\n/mcp-resource".
    const raw = 'x <\nmcp-resource\n';
    expect(escapeUntrustedText(raw)).toBe('x &lt;\nmcp-resource\n');
    expect(isCleanCut(raw, 4)).toBe(false);
  });

  it('cuts exactly where asked when that is a clean cut, and at the next one otherwise', () => {
    const raw = 'one\ntwo\nthree\nfour\n';
    // 4 is the cut after "one\n": the prefix ends there, not at the next line's end.
    expect(new EscapedText(raw).prefix(4)).toEqual({ text: 'one\n', whole: false, rawChars: 4 });
    expect(new EscapedText(raw).prefix(5)).toEqual({ text: 'one\ntwo\n', whole: false, rawChars: 8 });
  });

  it('is no clean cut at or past the end of the text, even after a newline', () => {
    expect(isCleanCut('a\n', 2)).toBe(false);
    expect(isCleanCut('a\n', 3)).toBe(false);
    expect(isCleanCut('a\nb', 0)).toBe(false);
  });

  it('escapes a text with no clean cut whole', () => {
    const raw = 'QUJD'.repeat(10_000);
    const escaped = new EscapedText(raw);
    expect(escaped.prefix(10)).toEqual({ text: raw, whole: true, rawChars: raw.length });
  });
});
