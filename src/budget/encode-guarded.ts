/** How text is encoded exactly: tiktoken's own call, its pre-tokenizer, and a fast BPE for long pieces. */
export interface PieceEncoder {
  /** tiktoken's encoding of a text (`encode_ordinary`): exact, but quadratic in its longest piece. */
  readonly ordinary: (text: string) => Uint32Array;
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
// (with marks), symbols and punctuation (emoji included), whitespace, and `/`-newline tails.
const longRun = new RegExp(
  `[\\p{L}\\p{M}]{${longRunChars + 1},}|[^\\s\\p{L}\\p{N}]{${longRunChars + 1},}|\\s{${longRunChars + 1},}|[\\r\\n/]{${longRunChars + 1},}`,
  'u',
);

/**
 * Encodes a chunk that starts and ends on piece boundaries, exactly as one tiktoken call on it
 * would. A chunk that may hold a long piece is split into its pieces: runs of short ones go to
 * tiktoken together, each long one to the fast byte-pair encoder. Everything else is one call.
 */
export function encodeGuarded(chunk: string, encoder: PieceEncoder): Uint32Array {
  if (!mayHoldLongPiece(chunk)) return encoder.ordinary(chunk);
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

/** Moves a cut index forward by one when it would separate a surrogate pair. */
export function avoidSurrogateSplit(text: string, index: number): number {
  if (index <= 0 || index >= text.length) return index;
  const before = text.charCodeAt(index - 1);
  return before >= 0xd800 && before <= 0xdbff ? index + 1 : index;
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
 * every chunk would cost more than tokenizing it, so a char-code scan first finds stretches
 * that could hold one (long stretches of whitespace-or-slash, or of anything else), and only
 * those meet the regex.
 */
function mayHoldLongPiece(chunk: string): boolean {
  let stretchStart = 0;
  let stretchKind = chunk.length > 0 && isSpaceOrSlash(chunk.charCodeAt(0));
  for (let index = 1; index <= chunk.length; index++) {
    const kind = index < chunk.length && isSpaceOrSlash(chunk.charCodeAt(index));
    if (index < chunk.length && kind === stretchKind) continue;
    if (index - stretchStart > longRunChars && longRun.test(chunk.slice(stretchStart, index))) return true;
    stretchStart = index;
    stretchKind = kind;
  }
  return false;
}

function isSpaceOrSlash(code: number): boolean {
  if (code <= 0x20 || code === 0x2f) return true;
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
    code === 0x3000 ||
    code === 0xfeff
  );
}
