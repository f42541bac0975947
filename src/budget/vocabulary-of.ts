import { createRequire } from 'node:module';
import type { TokenizerEncoding } from './encoding-for-model.js';

/** An encoding's tokens as byte strings (one latin1 character per byte), both ways. */
export interface Vocabulary {
  /** Byte string → rank (the token), ordinary tokens only. */
  readonly ranks: Map<string, number>;
  /** Token → its byte string, special tokens included. */
  readonly bytesOf: readonly string[];
}

/**
 * The vocabulary of `encoding`, read from tiktoken's own encoder file on first use, once per
 * process (~200k tokens; a few hundred ms, about what tiktoken's own WASM encoder takes to load).
 */
export function vocabularyOf(encoding: TokenizerEncoding): Vocabulary {
  const known = loaded.get(encoding);
  if (known) return known;
  const { bpe_ranks: table, special_tokens: special } = require(`tiktoken/encoders/${encoding}.json`) as {
    bpe_ranks: string;
    special_tokens: Record<string, number>;
  };
  // Format: "! <first rank> <base64 token> <base64 token> …", ranks consecutive after each "!".
  const ranks = new Map<string, number>();
  const bytesOf: string[] = [];
  const words = table.split(' ');
  let rank = 0;
  for (let index = 0; index < words.length; index++) {
    const word = words[index] as string;
    if (word === '') continue;
    if (word === '!') {
      rank = Number(words[++index]);
      continue;
    }
    // atob: base64 to a byte string, twice as fast here as Buffer's round trip.
    const bytes = atob(word);
    ranks.set(bytes, rank);
    bytesOf[rank++] = bytes;
  }
  for (const [text, token] of Object.entries(special)) bytesOf[token] = Buffer.from(text).toString('latin1');
  const vocabulary = { ranks, bytesOf };
  loaded.set(encoding, vocabulary);
  return vocabulary;
}

// --- Internal helpers ---

const loaded = new Map<TokenizerEncoding, Vocabulary>();
const require = createRequire(import.meta.url);
