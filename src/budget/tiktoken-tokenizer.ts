import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { get_encoding, type Tiktoken } from 'tiktoken';
import { ContextError } from '../errors.js';
import { boundedByCount } from '../options/bounded-by-count.js';
import { bytePairEncode } from './byte-pair-encode.js';
import { encodeChunked } from './count-tokens-chunked.js';
import { decodeUtf8Whole } from './decode-utf8-whole.js';
import { detachedCopy } from './detached-copy.js';
import { encodeGuarded, type PieceEncoder } from './encode-guarded.js';
import { defaultPieceEntries, OrdinaryEncoder } from './encode-ordinary.js';
import { encodingForModel, type TokenizerEncoding } from './encoding-for-model.js';
import { isSafeBoundary } from './find-safe-boundary.js';
import { patternIsTiktokens } from './pre-tokenize-pattern.js';
import { PieceScanner } from './scan-pieces.js';
import type { Tokenizer } from './tokenizer.js';
import { vocabularyOf } from './vocabulary-of.js';

export interface TiktokenTokenizerOptions {
  /** Default `o200k_base`. */
  readonly encoding?: TokenizerEncoding;
  /** A model name whose encoding to use (`gpt-4-turbo` → `cl100k_base`); `encoding` wins if both are set. */
  readonly model?: string;
  /** Counts kept per process, keyed by the text's sha256. Default 10,000; at least 1. */
  readonly countCacheEntries?: number;
  /**
   * Pre-tokenized pieces whose tokens this tokenizer keeps (default 50,000; 0 encodes with
   * tiktoken's WASM instead, as it does anyway on a Node whose Unicode tables are not tiktoken's).
   */
  readonly pieceCacheEntries?: number;
}

interface SharedEncoder {
  readonly encoder: Tiktoken;
  users: number;
  /** Bytes of each token, filled in as tokens are met (0: not yet known). */
  readonly tokenBytes: Uint16Array;
}

// tiktoken does not cache get_encoding(): each call costs 160–350 ms and its own WASM memory.
// One encoder per encoding per process, loaded only for a tokenizer that encodes with it, freed
// when its last user disposes.
const shared = new Map<TokenizerEncoding, SharedEncoder>();

// Token ids of o200k_base and cl100k_base (special tokens included) are below this.
const vocabularySize = 200_064;

// Hashing is ~1000× cheaper than tokenizing, but for short texts neither matters.
const cacheFromChars = 1024;
const hashChunkChars = 1024 * 1024;

/**
 * A Tokenizer on tiktoken's encodings (default `o200k_base`, the encoding of current OpenAI
 * models), token for token: encoded in JavaScript on tiktoken's vocabulary where this Node's
 * Unicode tables allow it (encode-ordinary.ts), else by tiktoken's WASM. Counts in chunks cut at
 * piece boundaries, yielding between them; splits quadratic runs (see encode-guarded.ts); caches
 * counts by content hash.
 */
export function createTiktokenTokenizer(
  encodingOrOptions: TokenizerEncoding | TiktokenTokenizerOptions = {},
): Tokenizer {
  const options = typeof encodingOrOptions === 'string' ? { encoding: encodingOrOptions } : encodingOrOptions;
  const encoding =
    options.encoding ?? (options.model !== undefined ? encodingForModel(options.model) : 'o200k_base');
  const pieceEntries = options.pieceCacheEntries ?? defaultPieceEntries;
  if (!Number.isSafeInteger(pieceEntries) || pieceEntries < 0) {
    throw new ContextError('INVALID_OPTION', 'pieceCacheEntries must be a whole number, 0 or more', {
      field: 'pieceCacheEntries',
      value: pieceEntries,
    });
  }
  const backend =
    patternIsTiktokens && pieceEntries > 0
      ? javaScriptBackend(encoding, pieceEntries)
      : wasmBackend(encoding);
  const { bytesOf } = backend;
  const pieceEncoder: PieceEncoder = {
    ordinary: backend.ordinary,
    linear: backend.linear,
    scanner: new PieceScanner(encoding),
    longPiece: (piece) => bytePairEncode(encoding, piece),
  };
  const countEntries = options.countCacheEntries ?? 10_000;
  if (!Number.isSafeInteger(countEntries) || countEntries < 1) {
    throw new ContextError('INVALID_OPTION', 'countCacheEntries must be a whole number, 1 or more', {
      field: 'countCacheEntries',
      value: countEntries,
    });
  }
  const entries = boundedByCount(countEntries);
  // How many kept counts are of texts of each length: a bounded encoding hashes its text (to
  // learn its whole count) only when some text of that length was counted, not every body.
  const countedLengths = new Map<number, number>();
  const counts = new LRUCache<string, number>({
    ...entries,
    dispose: (_count, key, reason) => {
      // An overwrite ('set') keeps the key, and so its length.
      if (reason !== 'set') forgetLength(lengthOfKey(key));
    },
  });
  const forgetLength = (length: number) => {
    const left = (countedLengths.get(length) ?? 0) - 1;
    if (left > 0) countedLengths.set(length, left);
    else countedLengths.delete(length);
  };
  const keepCount = (key: string, count: number) => {
    if (!counts.has(key)) {
      const length = lengthOfKey(key);
      countedLengths.set(length, (countedLengths.get(length) ?? 0) + 1);
    }
    counts.set(key, count);
  };
  const shortCounts = new LRUCache<string, number>(entries);
  const counting = new Map<string, Promise<number>>();
  const keyOf = async (text: string) => {
    const hash = createHash('sha256');
    // Hashing megabytes in one call would block the event loop as long as counting a chunk does.
    for (let start = 0; start < text.length; start += hashChunkChars) {
      hash.update(text.slice(start, start + hashChunkChars));
      if (start + hashChunkChars < text.length) await new Promise((resolve) => setImmediate(resolve));
    }
    return `${text.length}:${hash.digest('base64')}`;
  };
  // The last text cut from its end, with the piece boundaries walks found in it: a turn cuts one
  // body from its end again as it fits the rendering (see encodeChunked's `walked`).
  let lastFromEnd: { readonly text: string; readonly walked: number[] } | undefined;
  let disposed = false;
  const countShort = (text: string, keep = true): number | undefined => {
    if (text.length >= cacheFromChars) return undefined;
    // A text not asked about again (a new body's chunk, hundreds a turn under `relevant`) is only
    // counted: kept, each would be a copy of the chunk (hostLike: 12 KB a steady turn, up to the
    // bound's 10,000 chunks), hashed twice, for a count its chunk index already keeps.
    if (!keep) return encodeGuarded(text, pieceEncoder).length;
    // Short texts recur every turn (frame headers, markers): keep their counts, keyed by the
    // text itself (hashing them would cost about what counting does).
    const known = shortCounts.get(text);
    if (known !== undefined) return known;
    const count = encodeGuarded(text, pieceEncoder).length;
    // A copy as the key: the text is often cut from a body, which the key would keep alive.
    shortCounts.set(detachedCopy(text), count);
    return count;
  };

  return {
    name: `tiktoken:${encoding}`,
    // Pieces are encoded on their own (see find-safe-boundary.ts).
    piecewise: true,
    encode: async (text) => (await encodeChunked(text, pieceEncoder, { keepTokens: true })).tokens,
    decode: (tokens) => decodeUtf8Whole(backend.bytesOfTokens(tokens)),
    countShort,
    count: async (text) => {
      const short = countShort(text);
      if (short !== undefined) return short;
      const key = await keyOf(text);
      const cached = counts.get(key);
      if (cached !== undefined) return cached;
      // Concurrent turns over the same pins count the same renderings: count each once.
      let flight = counting.get(key);
      if (!flight) {
        flight = encodeChunked(text, pieceEncoder).then(({ count }) => count);
        counting.set(key, flight);
        void flight.then(
          (count) => {
            keepCount(key, count);
            counting.delete(key);
          },
          () => counting.delete(key),
        );
      }
      return flight;
    },
    encodeWithin: async (text, limitTokens, from, resume) => {
      const cacheable = text.length >= cacheFromChars;
      let key = cacheable && countedLengths.has(text.length) ? await keyOf(text) : undefined;
      const known = key === undefined ? undefined : counts.get(key);
      // Only an encoding of this text from its start, which stopped at one of our chunk cuts (the
      // caller's word: it came from this tokenizer), can be gone on from; from the end, none is.
      const resumable = resume !== undefined && resume.start === 0;
      if (from === 'end' && lastFromEnd?.text !== text) lastFromEnd = { text, walked: [] };
      const result = await encodeChunked(text, pieceEncoder, {
        limitTokens,
        fromEnd: from === 'end',
        keepTokens: true,
        ...(resumable && { resume }),
        ...(from === 'end' && lastFromEnd && { walked: lastFromEnd.walked }),
      });
      if (result.complete && cacheable) {
        key ??= await keyOf(text);
        keepCount(key, result.count);
      }
      return { ...result, ...(known !== undefined && { knownCount: known }) };
    },
    countPrefix: (text, encoding, chars) => {
      if (encoding.start !== 0 || chars > encoding.end || !isSafeBoundary(text, chars)) return undefined;
      // Pieces are encoded on their own, so the tokens of a prefix that ends on a piece boundary
      // are the encoding's first tokens up to exactly its bytes.
      const bytes = Buffer.byteLength(text.slice(0, chars));
      let sum = 0;
      let count = 0;
      while (sum < bytes && count < encoding.tokens.length)
        sum += bytesOf(encoding.tokens[count++] as number);
      return sum === bytes ? count : undefined;
    },
    dispose: () => {
      if (disposed) return;
      disposed = true;
      backend.release();
    },
  };
}

// --- Internal helpers ---

/** Count keys are `length:sha256`. */
function lengthOfKey(key: string): number {
  return Number(key.slice(0, key.indexOf(':')));
}

/** What encodes and decodes for a tokenizer: JavaScript on tiktoken's vocabulary, or tiktoken's WASM. */
interface Backend {
  /** tiktoken's `encode_ordinary` (encode() would throw on special-token text inside content). */
  readonly ordinary: (text: string) => Uint32Array;
  /** Whether `ordinary` is linear in its longest piece (no guard needed; see encode-guarded.ts). */
  readonly linear: boolean;
  readonly bytesOf: (token: number) => number;
  readonly bytesOfTokens: (tokens: Uint32Array) => Uint8Array;
  readonly release: () => void;
}

/** encode-ordinary.ts and the vocabulary: no WASM loaded at all. */
function javaScriptBackend(encoding: TokenizerEncoding, pieceEntries: number): Backend {
  const encoder = new OrdinaryEncoder(encoding, pieceEntries);
  const vocabulary = vocabularyOf(encoding);
  // A number that is no token of the encoding is an error that names it.
  const lengthOf = (token: number) => {
    const length = vocabulary.byteLength(token);
    if (length === undefined) throw new RangeError(`${token} is not a token of ${encoding}`);
    return length;
  };
  return {
    ordinary: (text) => encoder.encode(text),
    linear: true,
    bytesOf: lengthOf,
    bytesOfTokens: (tokens) => {
      let length = 0;
      for (const token of tokens) length += lengthOf(token);
      const bytes = new Uint8Array(length);
      let offset = 0;
      for (const token of tokens) offset = vocabulary.writeBytes(token, bytes, offset);
      return bytes;
    },
    release: () => {},
  };
}

/** tiktoken's WASM encoder, shared by every tokenizer of the encoding that uses it. */
function wasmBackend(encoding: TokenizerEncoding): Backend {
  let entry = shared.get(encoding);
  if (!entry) {
    entry = { encoder: get_encoding(encoding), users: 0, tokenBytes: new Uint16Array(vocabularySize) };
    shared.set(encoding, entry);
  }
  entry.users++;
  const { encoder, tokenBytes } = entry;
  return {
    ordinary: (text) => encoder.encode_ordinary(text),
    linear: false,
    bytesOf: (token) => {
      let known = tokenBytes[token] ?? 0;
      if (known === 0) {
        known = encoder.decode_single_token_bytes(token).length;
        if (token < tokenBytes.length) tokenBytes[token] = known;
      }
      return known;
    },
    bytesOfTokens: (tokens) => encoder.decode(tokens),
    // The last user frees the WASM memory.
    release: () => {
      const current = shared.get(encoding);
      if (current && --current.users === 0) {
        shared.delete(encoding);
        current.encoder.free();
      }
    },
  };
}
