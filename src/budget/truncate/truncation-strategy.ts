import type { TruncationStrategyName } from '../../types.js';
import type { JoinedPart } from '../count-joined.js';
import type { BoundedEncoding, Tokenizer } from '../tokenizer.js';
import type { ElidedRange } from '../truncation-marker.js';
import type { ChunkIndex } from './chunk-index.js';

/** What a strategy needs to cut one attachment's content down to its share. */
export interface TruncationRequest {
  /** Escaped content, as it would be framed whole. */
  readonly body: string;
  /** Leading characters every cut keeps (a CSV header, a code fence line); 0 for none. */
  readonly pinnedChars: number;
  /** Tokens for the shown content; one marker is already paid for on top of this. */
  readonly contentTokens: number;
  /** Tokens of one marker at most. */
  readonly markerTokens: number;
  /**
   * Tokens of one brief marker at most (`marker(…, brief)`): what each elided range after the
   * first costs a cut with several (`relevant`). Absent, a full marker's.
   */
  readonly briefMarkerTokens?: number;
  readonly originalTokens: number;
  readonly estimated: boolean;
  /** Tokens from the start of `body`, counted while measuring: reused, not re-encoded. */
  readonly headEncoding?: BoundedEncoding;
  readonly tokenizer: Tokenizer;
  readonly lineAware: boolean;
  /** The user's message, for `relevant`. */
  readonly query?: string;
  /** The marker for an elided range; `brief` for a range after the cut's first (see truncationMarker). */
  readonly marker: (range: ElidedRange, estimated: boolean, brief?: boolean) => string;
  /**
   * Where `relevant` keeps what it derives from this body across turns (the derived cache), and
   * the key naming the body (its content, the model's media and the tokenizer). Without it, each
   * cut derives them afresh.
   */
  readonly chunks?: { readonly memo: ChunkMemo; readonly key: string; readonly probation?: boolean };
}

/** Keeps each body's chunk index (see chunk-index.ts), bounded. */
export interface ChunkMemo {
  /** The index kept under `key`, or `build()`'s, kept (`probation`: a message attachment's). */
  chunkIndex(key: string, build: () => ChunkIndex, probation: boolean): ChunkIndex;
}

export interface TruncationResult {
  /** Shown content with a marker at every elided range. */
  readonly text: string;
  readonly elided: readonly ElidedRange[];
  /**
   * `text` as consecutive parts, each with its exact count where the cut already knows it, so
   * the rendering is counted without encoding the shown content again (see countJoined).
   */
  readonly parts?: readonly JoinedPart[];
}

export type TruncationStrategy = (request: TruncationRequest) => Promise<TruncationResult>;

export type { TruncationStrategyName };
