import { pieceClasses } from './pre-tokenize-pattern.js';

// The classes a code point belongs to, as the pre-tokenizer patterns use them (tiktoken's tables).
export const letterBit = 1;
export const numberBit = 2;
/** `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`: what o200k's letter pieces may start with. */
export const upperBit = 4;
/** `[\p{Ll}\p{Lm}\p{Lo}\p{M}]`: what o200k's letter pieces end with. */
export const lowerBit = 8;
/** The White_Space property (the regex crate's `\s`). */
export const spaceBit = 16;
/** `\r` and `\n`. */
export const newlineBit = 32;
export const slashBit = 64;
/** Neither whitespace nor a letter nor a number: `[^\s\p{L}\p{N}]`. */
export const punctBit = 128;
/** What o200k's punctuation pieces end with: `[\r\n/]`. */
export const tailBits = newlineBit | slashBit;
/** Letters and marks: what a letter piece is made of after its first character. */
export const letterish = letterBit | upperBit | lowerBit;

/**
 * The class bits of a code point (a lone surrogate is one: punctuation, as the regex takes it),
 * found by the patterns' own classes the first time a code point is met and kept after.
 */
export function bitsOf(code: number): number {
  if (code < 0x10000) {
    const known = basicBits[code] as number;
    if (known !== 0) return known & 0xff;
    const bits = classify(code);
    basicBits[code] = bits | 0x100;
    return bits;
  }
  let bits = astralBits.get(code);
  if (bits === undefined) {
    bits = classify(code);
    astralBits.set(code, bits);
  }
  return bits;
}

/** The code point that ends just before `index` (a pair read whole), or -1 at the start. */
export function codePointBefore(text: string, index: number): number {
  if (index <= 0) return -1;
  const unit = text.charCodeAt(index - 1);
  if (unit >= 0xdc00 && unit <= 0xdfff && index >= 2) {
    const high = text.charCodeAt(index - 2);
    if (high >= 0xd800 && high <= 0xdbff) return ((high - 0xd800) << 10) + (unit - 0xdc00) + 0x10000;
  }
  return unit;
}

/** The code point that starts at `index` (a pair read whole). */
export function codePointAt(text: string, index: number): number {
  const unit = text.charCodeAt(index);
  if (unit >= 0xd800 && unit <= 0xdbff && index + 1 < text.length) {
    const low = text.charCodeAt(index + 1);
    if (low >= 0xdc00 && low <= 0xdfff) return ((unit - 0xd800) << 10) + (low - 0xdc00) + 0x10000;
  }
  return unit;
}

// --- Internal helpers ---

const classes = {
  letter: new RegExp(`^${pieceClasses.letter}$`, 'v'),
  number: new RegExp(`^${pieceClasses.number}$`, 'v'),
  upper: new RegExp(`^${pieceClasses.upper}$`, 'v'),
  lower: new RegExp(`^${pieceClasses.lower}$`, 'v'),
  space: /^\p{White_Space}$/u,
};
// Class bits by code point, filled as code points are met (0: not yet; bit 8 marks a known one).
const basicBits = new Uint16Array(0x10000);
const astralBits = new Map<number, number>();

function classify(code: number): number {
  const character = code >= 0xd800 && code <= 0xdfff ? String.fromCharCode(code) : String.fromCodePoint(code);
  let bits = 0;
  if (classes.letter.test(character)) bits |= letterBit;
  if (classes.number.test(character)) bits |= numberBit;
  if (classes.upper.test(character)) bits |= upperBit;
  if (classes.lower.test(character)) bits |= lowerBit;
  if (classes.space.test(character)) bits |= spaceBit;
  if (code === 0x0a || code === 0x0d) bits |= newlineBit;
  if (code === 0x2f) bits |= slashBit;
  if ((bits & (spaceBit | letterBit | numberBit)) === 0) bits |= punctBit;
  return bits;
}
