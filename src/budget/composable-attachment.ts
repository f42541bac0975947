import type { ConvertedSection } from '../render/converted-section.js';
import type {
  BlockProvenance,
  ContextBlock,
  ModelCapabilities,
  ScopeKind,
  TruncationStrategyName,
} from '../types.js';
import type { BodyMeasure } from './measure-body.js';
import type { ChunkMemo } from './truncate/truncation-strategy.js';

/** Converted, escaped content ready for the budget, in budget rank order. */
export interface ComposableAttachment {
  readonly provenance: Omit<BlockProvenance, 'truncated' | 'originalTokens' | 'originalTokensEstimated'>;
  /** Converted sections with their text already escaped for framing. */
  readonly sections: readonly ConvertedSection[];
  readonly capTokens?: number;
  /** Names this content across turns (hash + converters), so its counts can be reused. */
  readonly contentKey?: string;
}

/** Keeps how far each unchanged body was counted, across turns (the derived cache). */
export interface MeasureMemo {
  /**
   * `probation`: a message attachment's, likely counted once (see docs/caches.md). `again`: this
   * turn looked the key up already (it counts on from that measure): finding it is not a later
   * turn's use, and leaves it where it is.
   */
  measureOnce(
    key: string,
    limitTokens: number,
    compute: () => Promise<BodyMeasure>,
    probation: boolean,
    again?: boolean,
  ): Promise<BodyMeasure>;
}

/** A rendered resource block with its exact count under the tokenizer that counted it. */
export interface CountedBlock {
  readonly block: ContextBlock & { kind: 'resource' };
  readonly tokens: number;
}

/** What one attachment costs whole, and what a cut of it costs before any content. */
export interface FrameCost {
  readonly fullTokens: number;
  readonly truncatedOverheadTokens: number;
  readonly markerTokens: number;
  /** Each further gap of a cut with several (`relevant`): its longest brief marker. */
  readonly briefMarkerTokens: number;
}

/**
 * What a warm turn reuses (the derived cache): how far each body was counted, what its frames
 * cost, each rendering with its exact count, and each body's chunk index for `relevant` cuts,
 * keyed by everything that shapes them.
 */
export interface BudgetMemo extends MeasureMemo, ChunkMemo {
  rendering(key: string): CountedBlock | undefined;
  keepRendering(key: string, rendered: CountedBlock): void;
  /** A whole turn's composition, when every input to it is what it was (see composeContext). */
  composition<Composed>(key: string): Composed | undefined;
  keepComposition<Composed extends { readonly blocks: readonly { readonly text: string }[] }>(
    key: string,
    composed: Composed,
  ): void;
  frameCost(key: string): FrameCost | undefined;
  keepFrameCost(key: string, cost: FrameCost): void;
}

export interface ComposeOptions {
  readonly maxTokens: number;
  readonly minTokens: number;
  readonly strategy: 'fair' | 'priority';
  /** Render position of each attachment (the budget ranks narrowest first; rendering puts the stablest first). */
  readonly renderOrder: readonly number[];
  /** How a resource that does not fit is cut. Default `head`. */
  readonly truncation?: TruncationStrategyName;
  /** Cut at a line end when one is near. Default true. */
  readonly lineAware?: boolean;
  /** Fraction of `maxTokens` held back for a model whose tokenizer differs. Default 0. */
  readonly safetyMargin?: number;
  /** What the model accepts natively (images, audio, PDF). */
  readonly model?: ModelCapabilities;
  /** The user's message, for `relevant` truncation. */
  readonly query?: string;
  /** Tokens held for each scope's attachments before the rest is shared. */
  readonly reserve?: Partial<Record<ScopeKind, number>>;
  /** Keeps counts, frame costs and renderings of unchanged content across turns. */
  readonly derived?: BudgetMemo;
  /**
   * When counting and rendering stop, on the `performance.now()` clock: an attachment whose own
   * work would start later is left out with TURN_DEADLINE (see checkComposeStop).
   */
  readonly stopAt?: number;
  /**
   * The section placed right after the preamble (the server instructions), already paid for in
   * `maxTokens`: a tokenizer that is not `piecewise` counts each rendering with it in place,
   * since tokens may span its joins.
   */
  readonly leading?: { readonly text: string; readonly tokens: number };
}
