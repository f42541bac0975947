import type { TokenizerEncoding } from './encoding-for-model.js';

// tiktoken's pre-tokenizer patterns (`pat_str` of each encoding), in JavaScript syntax:
// - `(?i:'s|…)` (an inline case-insensitive group, which Node 20's V8 lacks) is spelled out
//   as character classes; Rust's case folding also matches `'ſ` (U+017F folds to s);
// - `\s`/`\S` become `\p{White_Space}`/`\P{White_Space}`: the Rust regex crate's `\s` is the
//   Unicode White_Space property, while JavaScript's also matches U+FEFF;
// - letters, marks and numbers leave out the characters Unicode 17.0 assigned (tiktoken's regex
//   tables are Unicode 16.0, where they are unassigned, so it takes them as punctuation).
const contractions = "(?:'[sSſ]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])";
const space = '\\p{White_Space}';
const nonSpace = '\\P{White_Space}';

/**
 * Code points Unicode 17.0 assigned as letters, marks or digits. Node 20's V8 (ICU 78) knows
 * them, tiktoken does not; found by comparing tiktoken with this pattern over every code point
 * (test/budget/pre-tokenize-pattern.test.ts samples that comparison on every run).
 */
const unicode17 = [
  [0x88f, 0x88f],
  [0xc5c, 0xc5c],
  [0xcdc, 0xcdc],
  [0x1acf, 0x1add],
  [0x1ae0, 0x1aeb],
  [0xa7ce, 0xa7cf],
  [0xa7d2, 0xa7d2],
  [0xa7d4, 0xa7d4],
  [0xa7f1, 0xa7f1],
  [0x10940, 0x10959],
  [0x10ec5, 0x10ec7],
  [0x10efa, 0x10efb],
  [0x11b60, 0x11b67],
  [0x11db0, 0x11ddb],
  [0x11de0, 0x11de9],
  [0x16ea0, 0x16eb8],
  [0x16ebb, 0x16ed3],
  [0x16ff2, 0x16ff6],
  [0x187f8, 0x187ff],
  [0x18d09, 0x18d1e],
  [0x18d80, 0x18df2],
  [0x1e6c0, 0x1e6de],
  [0x1e6e0, 0x1e6f5],
  [0x1e6fe, 0x1e6ff],
  [0x2b73a, 0x2b73f],
  [0x2cea2, 0x2cead],
  [0x323b0, 0x33479],
] as const;
const hex = (code: number) => `\\u{${code.toString(16)}}`;
const newlyAssigned = `[${unicode17.map(([from, to]) => (from === to ? hex(from) : `${hex(from)}-${hex(to)}`)).join('')}]`;
/** A class of the given properties as tiktoken's tables have them (in the regex `v` mode). */
const known = (properties: string) => `[[${properties}]--${newlyAssigned}]`;
const letter = known('\\p{L}');
const number = known('\\p{N}');
const upper = known('\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}');
const lower = known('\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}');

/**
 * The character classes the patterns are made of, as `v`-mode class sources, tiktoken's tables
 * as above: scan-pieces.ts sorts code points by them, so its pieces are this pattern's.
 */
export const pieceClasses = { letter, number, upper, lower } as const;

const patterns: Record<TokenizerEncoding, string> = {
  o200k_base: [
    `[^\\r\\n${letter}${number}]?${upper}*${lower}+${contractions}?`,
    `[^\\r\\n${letter}${number}]?${upper}+${lower}*${contractions}?`,
    `${number}{1,3}`,
    ` ?[^${space}${letter}${number}]+[\\r\\n\\/]*`,
    `${space}*[\\r\\n]+`,
    `${space}+(?!${nonSpace})`,
    `${space}+`,
  ].join('|'),
  cl100k_base: [
    contractions,
    `[^\\r\\n${letter}${number}]?${letter}+`,
    `${number}{1,3}`,
    ` ?[^${space}${letter}${number}]+[\\r\\n]*`,
    `${space}*[\\r\\n]+`,
    `${space}+(?!${nonSpace})`,
    `${space}+`,
  ].join('|'),
};

/**
 * Whether this Node's Unicode tables, less the Unicode 17.0 additions, are tiktoken's: true on
 * Unicode 16.0 and 17.0. On another version letters and digits may be classed differently, so
 * the pattern can still find piece boundaries in ordinary text but is not trusted to tokenize.
 */
export const patternIsTiktokens = ['16.0', '17.0'].includes(process.versions.unicode ?? '');

/**
 * A sticky regex that matches, at `lastIndex`, the next piece tiktoken's pre-tokenizer cuts
 * for `encoding`. Run over the whole text from a piece boundary, every match ends on one:
 * tiktoken merges tokens only inside a piece, so this is where text can be split exactly.
 */
export function preTokenizePattern(encoding: TokenizerEncoding): RegExp {
  return new RegExp(patterns[encoding], 'vy');
}
