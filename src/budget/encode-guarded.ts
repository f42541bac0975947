import { concatTokens } from './concat-tokens.js';
import { longRunChars, PieceScanner } from './scan-pieces.js';

/** How text is encoded exactly: tiktoken's own call, its pre-tokenizer, and a fast BPE for long pieces. */
export interface PieceEncoder {
  /** tiktoken's encoding of a text (`encode_ordinary`): exact, but maybe quadratic in its longest piece. */
  readonly ordinary: (text: string) => Uint32Array;
  /** Whether `ordinary` is linear in its longest piece already (encode-ordinary.ts): no guard needed. */
  readonly linear?: boolean;
  /** The encoding's pre-tokenizer (see scan-pieces.ts). */
  readonly scanner: PieceScanner;
  /** Tokens of one piece, exactly as tiktoken merges them, in O(n log n) (see byte-pair-encode.ts). */
  readonly longPiece: (piece: string) => Uint32Array;
}

/**
 * Encodes a chunk that starts and ends on piece boundaries, exactly as one tiktoken call on it
 * would. A chunk that may hold a long piece is split into its pieces: runs of short ones go to
 * tiktoken together, each one longer than longRunChars to the fast byte-pair encoder (BPE in
 * tiktoken is quadratic in one piece's length: 64 KB of "a" takes ~2.8 s; at 512 characters a
 * piece costs about what ordinary text does). Everything else is one call.
 */
export function encodeGuarded(chunk: string, encoder: PieceEncoder): Uint32Array {
  if (encoder.linear || !PieceScanner.hasLongRun(chunk)) return encoder.ordinary(chunk);
  const parts: Uint32Array[] = [];
  let pending = 0;
  const { scanner } = encoder;
  for (let position = 0; position < chunk.length; ) {
    const end = scanner.pieceEnd(chunk, position);
    if (end - position > longRunChars) {
      if (position > pending) parts.push(encoder.ordinary(chunk.slice(pending, position)));
      parts.push(encoder.longPiece(chunk.slice(position, end)));
      pending = end;
    }
    position = end;
  }
  if (pending < chunk.length) parts.push(encoder.ordinary(chunk.slice(pending)));
  return concatTokens(parts);
}
