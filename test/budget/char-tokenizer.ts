import type { BoundedEncoding, Tokenizer } from '../../src/budget/tokenizer.js';

/**
 * A Tokenizer with one token per code point, so a test knows every count by reading its text:
 * for the cuts and shares of the budget step, where tiktoken's merges would hide an off-by-one.
 * Like tiktoken's, decoding maps a lone surrogate to U+FFFD. `bounded` adds encodeWithin (from
 * either end, stopping after `limitTokens + 1` tokens, going on from a `resume`), `prefix` adds countPrefix; `calls`
 * records every encoding and count, for tests of what is (not) encoded again.
 */
export function createCharTokenizer(options: { bounded?: boolean; prefix?: boolean } = {}) {
  const calls: string[] = [];
  const tokenizer: Tokenizer = {
    name: 'test:chars',
    // One token per code point: counts add up across any cut.
    piecewise: true,
    encode: async (text) => {
      calls.push(`encode ${text.length}`);
      return codePointsOf(text);
    },
    decode: (tokens) =>
      Array.from(tokens, (code) =>
        String.fromCodePoint(code >= 0xd800 && code <= 0xdfff ? 0xfffd : code),
      ).join(''),
    count: async (text) => {
      calls.push(`count ${text.length}`);
      return codePointsOf(text).length;
    },
    ...(options.bounded && {
      encodeWithin: async (
        text: string,
        limitTokens: number,
        from: 'start' | 'end',
        resume?: BoundedEncoding,
      ): Promise<BoundedEncoding> => {
        if (
          from === 'start' &&
          resume &&
          resume.start === 0 &&
          !resume.complete &&
          resume.end < text.length
        ) {
          // Goes on from an earlier encoding, as tiktoken's does: only the rest is encoded.
          calls.push(`encodeWithin ${from} ${limitTokens} after ${resume.tokens.length}`);
          const rest = Array.from(text.slice(resume.end));
          const taken = rest.slice(0, Math.max(0, limitTokens + 1 - resume.tokens.length));
          const tokens = new Uint32Array(resume.tokens.length + taken.length);
          tokens.set(resume.tokens);
          tokens.set(codePointsOf(taken.join('')), resume.tokens.length);
          const end = resume.end + taken.join('').length;
          return { tokens, start: 0, end, complete: end === text.length };
        }
        calls.push(`encodeWithin ${from} ${limitTokens}`);
        const all = Array.from(text);
        const taken =
          from === 'start'
            ? all.slice(0, limitTokens + 1)
            : all.slice(Math.max(0, all.length - limitTokens - 1));
        const chars = taken.join('').length;
        const tokens = codePointsOf(taken.join(''));
        const complete = taken.length === all.length;
        return from === 'start'
          ? { tokens, start: 0, end: chars, complete }
          : { tokens, start: text.length - chars, end: text.length, complete };
      },
    }),
    ...(options.prefix && {
      countPrefix: (text: string, encoding: BoundedEncoding, chars: number) =>
        encoding.start !== 0 || chars > encoding.end ? undefined : codePointsOf(text.slice(0, chars)).length,
    }),
    dispose: () => undefined,
  };
  return { tokenizer, calls };
}

function codePointsOf(text: string): Uint32Array {
  return Uint32Array.from(Array.from(text), (character) => character.codePointAt(0) as number);
}
