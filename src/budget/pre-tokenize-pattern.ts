import type { TokenizerEncoding } from './encoding-for-model.js';

// tiktoken's pre-tokenizer patterns (`pat_str` of each encoding), in JavaScript syntax:
// - `(?i:'s|…)` (an inline case-insensitive group, which Node 20's V8 lacks) is spelled out
//   as character classes;
// - `\s`/`\S` become `\p{White_Space}`/`\P{White_Space}`: the Rust regex crate's `\s` is the
//   Unicode White_Space property, while JavaScript's also matches U+FEFF.
const contractions = "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])";
const space = '\\p{White_Space}';
const nonSpace = '\\P{White_Space}';

const patterns: Record<TokenizerEncoding, string> = {
  o200k_base: [
    `[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+${contractions}?`,
    `[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*${contractions}?`,
    '\\p{N}{1,3}',
    ` ?[^${space}\\p{L}\\p{N}]+[\\r\\n/]*`,
    `${space}*[\\r\\n]+`,
    `${space}+(?!${nonSpace})`,
    `${space}+`,
  ].join('|'),
  cl100k_base: [
    contractions,
    '[^\\r\\n\\p{L}\\p{N}]?\\p{L}+',
    '\\p{N}{1,3}',
    ` ?[^${space}\\p{L}\\p{N}]+[\\r\\n]*`,
    `${space}*[\\r\\n]+`,
    `${space}+(?!${nonSpace})`,
    `${space}+`,
  ].join('|'),
};

/**
 * A sticky regex that matches, at `lastIndex`, the next piece tiktoken's pre-tokenizer cuts
 * for `encoding`. Run over the whole text from a piece boundary, every match ends on one:
 * tiktoken merges tokens only inside a piece, so this is where text can be split exactly.
 */
export function preTokenizePattern(encoding: TokenizerEncoding): RegExp {
  return new RegExp(patterns[encoding], 'uy');
}
