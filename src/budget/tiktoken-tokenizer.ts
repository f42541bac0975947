import { get_encoding, type Tiktoken, type TiktokenEncoding } from 'tiktoken';
import { decodeUtf8Whole } from './decode-utf8-whole.js';
import type { Tokenizer } from './tokenizer.js';

interface SharedEncoder {
  readonly encoder: Tiktoken;
  users: number;
}

// tiktoken does not cache get_encoding(): each call costs 160–350 ms and its own WASM memory.
// One encoder per encoding per process, freed when its last user disposes.
const shared = new Map<TiktokenEncoding, SharedEncoder>();

/** A Tokenizer on tiktoken (default `o200k_base`, the encoding of current OpenAI models). */
export function createTiktokenTokenizer(encoding: TiktokenEncoding = 'o200k_base'): Tokenizer {
  let entry = shared.get(encoding);
  if (!entry) {
    entry = { encoder: get_encoding(encoding), users: 0 };
    shared.set(encoding, entry);
  }
  entry.users++;
  const { encoder } = entry;
  let disposed = false;

  return {
    name: `tiktoken:${encoding}`,
    // encode_ordinary: encode() throws on special tokens such as <|endoftext|> inside content.
    encode: async (text) => encoder.encode_ordinary(text),
    decode: (tokens) => decodeUtf8Whole(encoder.decode(tokens)),
    count: async (text) => encoder.encode_ordinary(text).length,
    dispose: () => {
      if (disposed) return;
      disposed = true;
      const current = shared.get(encoding);
      if (current && --current.users === 0) {
        shared.delete(encoding);
        current.encoder.free();
      }
    },
  };
}
