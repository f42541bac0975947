import { createRequire } from 'node:module';
import type { TokenizerEncoding } from './encoding-for-model.js';

/**
 * An encoding's tokens as byte strings (one latin1 character per byte), both ways. Packed into
 * one string and a few typed arrays, not 200k strings in a Map: a few MB instead of ~35, and
 * nothing for the garbage collector to mark one by one on every major collection.
 */
export interface Vocabulary {
  /** The token that is exactly these bytes; undefined when none is (special tokens are not looked up). */
  rankOf(bytes: string): number | undefined;
  /** How many bytes a token stands for; undefined for a number that is no token. */
  byteLength(token: number): number | undefined;
  /** Writes a token's bytes into `into` at `offset`; answers the offset after them. */
  writeBytes(token: number, into: Uint8Array, offset: number): number;
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
  const numbers: number[] = [];
  const byteStrings: string[] = [];
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
    numbers.push(rank++);
    byteStrings.push(atob(word));
  }
  const ordinary = numbers.length;
  for (const [text, token] of Object.entries(special)) {
    numbers.push(token);
    byteStrings.push(Buffer.from(text).toString('latin1'));
  }
  const vocabulary = new PackedVocabulary(numbers, byteStrings, ordinary);
  loaded.set(encoding, vocabulary);
  return vocabulary;
}

// --- Internal helpers ---

const loaded = new Map<TokenizerEncoding, Vocabulary>();
const require = createRequire(import.meta.url);

/** Every token's bytes in one string, found by offset; ordinary tokens also by an open-addressing hash. */
class PackedVocabulary implements Vocabulary {
  private readonly bytes: string;
  private readonly starts: Int32Array;
  // -1: no token has this number.
  private readonly lengths: Int32Array;
  // Token numbers by hash of their bytes, -1 for an empty slot; at most half full.
  private readonly slots: Int32Array;
  private readonly mask: number;

  /** Token `numbers[i]` is `byteStrings[i]`; the first `ordinary` of them are looked up by their bytes. */
  constructor(numbers: readonly number[], byteStrings: readonly string[], ordinary: number) {
    let size = 0;
    for (const token of numbers) size = Math.max(size, token + 1);
    this.starts = new Int32Array(size);
    this.lengths = new Int32Array(size).fill(-1);
    let offset = 0;
    for (let index = 0; index < numbers.length; index++) {
      const token = numbers[index] as number;
      const length = (byteStrings[index] as string).length;
      this.starts[token] = offset;
      this.lengths[token] = length;
      offset += length;
    }
    this.bytes = byteStrings.join('');
    let slotCount = 1;
    while (slotCount < 2 * ordinary) slotCount *= 2;
    this.slots = new Int32Array(slotCount).fill(-1);
    this.mask = slotCount - 1;
    for (let index = 0; index < ordinary; index++) {
      let slot = hashOf(byteStrings[index] as string) & this.mask;
      while ((this.slots[slot] as number) !== -1) slot = (slot + 1) & this.mask;
      this.slots[slot] = numbers[index] as number;
    }
  }

  rankOf(bytes: string): number | undefined {
    for (let slot = hashOf(bytes) & this.mask; ; slot = (slot + 1) & this.mask) {
      const token = this.slots[slot] as number;
      if (token === -1) return undefined;
      if (this.lengths[token] === bytes.length && this.sameBytes(token, bytes)) return token;
    }
  }

  byteLength(token: number): number | undefined {
    const length = this.lengths[token];
    return length === undefined || length < 0 ? undefined : length;
  }

  writeBytes(token: number, into: Uint8Array, offset: number): number {
    const start = this.starts[token] as number;
    const end = start + (this.lengths[token] as number);
    let at = offset;
    for (let index = start; index < end; index++) into[at++] = this.bytes.charCodeAt(index);
    return at;
  }

  private sameBytes(token: number, bytes: string): boolean {
    const start = this.starts[token] as number;
    for (let index = 0; index < bytes.length; index++)
      if (this.bytes.charCodeAt(start + index) !== bytes.charCodeAt(index)) return false;
    return true;
  }
}

/** FNV-1a over a byte string's characters (each below 256). */
function hashOf(bytes: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < bytes.length; index++)
    hash = Math.imul(hash ^ bytes.charCodeAt(index), 0x01000193);
  return hash >>> 0;
}
