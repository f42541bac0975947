/** How text is encoded exactly: tiktoken's own call, its pre-tokenizer, and a fast BPE for long pieces. */
export interface PieceEncoder {
  /** tiktoken's encoding of a text (`encode_ordinary`): exact, but maybe quadratic in its longest piece. */
  readonly ordinary: (text: string) => Uint32Array;
  /** Whether `ordinary` is linear in its longest piece already (encode-ordinary.ts): no guard needed. */
  readonly linear?: boolean;
  /** The encoding's pre-tokenizer as a sticky regex (see pre-tokenize-pattern.ts). */
  readonly pieces: RegExp;
  /** Tokens of one piece, exactly as tiktoken merges them, in O(n log n) (see byte-pair-encode.ts). */
  readonly longPiece: (piece: string) => Uint32Array;
}

/**
 * Pieces longer than this many characters are byte-pair encoded outside tiktoken. BPE in
 * tiktoken is quadratic in the length of one pre-tokenized piece (64 KB of "a" takes ~2.8 s);
 * at 512 characters a piece costs about what ordinary text does.
 */
export const longRunChars = 512;

// The character classes of the pieces o200k/cl100k pre-tokenization can make long: letters
// (with marks), symbols and punctuation (emoji, `/`, U+FEFF and control characters included),
// whitespace, and `/`-newline tails. Whitespace is the White_Space property, as in the
// pre-tokenizer (pre-tokenize-pattern.ts): JavaScript's `\s` lacks U+0085 and has U+FEFF.
const longRun = new RegExp(
  `[\\p{L}\\p{M}]{${longRunChars + 1},}|[^\\p{White_Space}\\p{L}\\p{N}]{${longRunChars + 1},}|\\p{White_Space}{${longRunChars + 1},}|[\\r\\n/]{${longRunChars + 1},}`,
  'u',
);

/**
 * Encodes a chunk that starts and ends on piece boundaries, exactly as one tiktoken call on it
 * would. A chunk that may hold a long piece is split into its pieces: runs of short ones go to
 * tiktoken together, each long one to the fast byte-pair encoder. Everything else is one call.
 */
export function encodeGuarded(chunk: string, encoder: PieceEncoder): Uint32Array {
  if (encoder.linear || !mayHoldLongPiece(chunk)) return encoder.ordinary(chunk);
  const parts: Uint32Array[] = [];
  let pending = 0;
  const { pieces } = encoder;
  for (let position = 0; position < chunk.length; ) {
    pieces.lastIndex = position;
    const piece = pieces.exec(chunk)?.[0];
    // The pattern matches every character; should it not, tiktoken takes the rest as it is.
    if (piece === undefined) break;
    if (piece.length > longRunChars) {
      if (position > pending) parts.push(encoder.ordinary(chunk.slice(pending, position)));
      parts.push(encoder.longPiece(piece));
      pending = position + piece.length;
    }
    position += piece.length;
  }
  if (pending < chunk.length) parts.push(encoder.ordinary(chunk.slice(pending)));
  return concatTokens(parts);
}

export function concatTokens(parts: readonly Uint32Array[]): Uint32Array {
  if (parts.length === 1) return parts[0] as Uint32Array;
  let length = 0;
  for (const part of parts) length += part.length;
  const joined = new Uint32Array(length);
  let offset = 0;
  for (const part of parts) {
    joined.set(part, offset);
    offset += part.length;
  }
  return joined;
}

// --- Internal helpers ---

/**
 * Whether a chunk has a run long enough to be one long piece. A Unicode-property regex over
 * every chunk would cost more than tokenizing it, so a char-code scan first finds the stretches
 * that could hold one, and only those meet the regex: runs without whitespace (letters,
 * punctuation) and runs of whitespace or `/` (whitespace, newline tails). `/` belongs to both, as
 * it does to punctuation pieces and to their `[\r\n/]*` tails, so a piece that alternates it with
 * either kind lies within one stretch.
 */
function mayHoldLongPiece(chunk: string): boolean {
  let nonSpaceStart = 0;
  let spaceOrSlashStart = 0;
  for (let index = 0; index <= chunk.length; index++) {
    const code = index < chunk.length ? chunk.charCodeAt(index) : -1;
    const space = isWhiteSpace(code);
    if (code === -1 || space) {
      if (index - nonSpaceStart > longRunChars && longRun.test(chunk.slice(nonSpaceStart, index)))
        return true;
      nonSpaceStart = index + 1;
    }
    if (code === -1 || (!space && code !== slash)) {
      if (index - spaceOrSlashStart > longRunChars && longRun.test(chunk.slice(spaceOrSlashStart, index)))
        return true;
      spaceOrSlashStart = index + 1;
    }
  }
  return false;
}

const slash = 0x2f;

/** The Unicode White_Space property (tiktoken's `\s`), by char code. */
function isWhiteSpace(code: number): boolean {
  if (code === 0x20 || (code >= 0x09 && code <= 0x0d)) return true;
  if (code < 0x85) return false;
  return (
    code === 0x85 ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000
  );
}
