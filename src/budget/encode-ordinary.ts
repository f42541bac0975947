import { bytePairEncode } from './byte-pair-encode.js';
import { detachedCopy } from './detached-copy.js';
import type { TokenizerEncoding } from './encoding-for-model.js';
import { PieceScanner } from './scan-pieces.js';
import { vocabularyOf } from './vocabulary-of.js';

/** Pieces whose tokens an encoder keeps by default (a few MB at most). */
export const defaultPieceEntries = 50_000;

// Longer pieces (runs of one character class) are rare and costly to keep: encoded each time.
const keptPieceChars = 256;
// Tokens of a chunk are written to a buffer kept between texts, up to this many (256 KB).
const keptBufferTokens = 65_536;

/**
 * tiktoken's `encode_ordinary` in JavaScript, token for token: the pre-tokenizer's pieces (found
 * by PieceScanner, linear however long a piece runs), each piece's tokens kept by its
 * text (text repeats its words, so most pieces are met before), and the others byte-pair
 * encoded as tiktoken merges them. Linear in the longest piece. Exact only where the pattern is
 * tiktoken's (`patternIsTiktokens`); the caller checks that.
 */
export class OrdinaryEncoder {
  private readonly scanner: PieceScanner;
  // A piece's one token, or its tokens when it has several.
  private readonly known = new Map<string, number | Uint32Array>();
  private tokens = new Uint32Array(4096);

  constructor(
    private readonly encoding: TokenizerEncoding,
    private readonly pieceEntries = defaultPieceEntries,
  ) {
    // Loaded now, so a tokenizer's creation pays for it, not its first count (a turn).
    vocabularyOf(encoding);
    this.scanner = new PieceScanner(encoding);
  }

  /** How many pieces' tokens are kept now. */
  get keptPieces(): number {
    return this.known.size;
  }

  encode(text: string): Uint32Array {
    const { scanner, known } = this;
    let tokens = this.tokens;
    let count = 0;
    for (let start = 0; start < text.length; ) {
      const end = scanner.pieceEnd(text, start);
      const piece = text.slice(start, end);
      let value = known.get(piece);
      if (value === undefined) {
        const encoded = bytePairEncode(this.encoding, piece);
        value = encoded.length === 1 ? (encoded[0] as number) : encoded;
        if (piece.length <= keptPieceChars) {
          if (known.size >= this.pieceEntries) known.clear();
          // A copy: the piece is a view of the body it was cut from (see detachedCopy).
          known.set(detachedCopy(piece), value);
        }
      }
      const needed = count + (typeof value === 'number' ? 1 : value.length);
      if (needed > tokens.length) {
        const grown = new Uint32Array(Math.max(needed, 2 * tokens.length));
        grown.set(tokens.subarray(0, count));
        tokens = grown;
        // The buffer is kept for the next text only up to a usual chunk's size.
        if (grown.length <= keptBufferTokens) this.tokens = grown;
      }
      if (typeof value === 'number') tokens[count++] = value;
      else {
        tokens.set(value, count);
        count += value.length;
      }
      start = end;
    }
    return tokens.slice(0, count);
  }
}
