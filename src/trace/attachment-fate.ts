import type { ContextError } from '../errors.js';
import type { CacheStatus, OmittedContent, SharedCacheStatus, TraceEntry } from '../types.js';

/** The attachment a trace entry names: its scope, target and the pins it superseded. */
export type TracedAttachment = Pick<
  TraceEntry,
  'scope' | 'attachmentId' | 'server' | 'uri' | 'template' | 'superseded' | 'lastModified' | 'skillName'
>;

/** What the trace reports of converted content (the convert step's `ConvertedResource`). */
export interface ContentFacts {
  readonly mimeType: string;
  readonly sha256: string;
  readonly bytes: number;
  /** True when at least one item is text or a media part. */
  readonly textual: boolean;
  readonly omittedContents: readonly OmittedContent[];
  readonly notes: readonly string[];
}

/**
 * What became of one attachment after authorize → fetch → convert: it goes on to the budget
 * (`ready`, carrying its converted content and what the budget takes), or its fate is already
 * decided (`failed`: denied, an error, or a timeout). Parameterized by the convert step's types,
 * which the trace only reads through `ContentFacts`.
 */
export type AttachmentFate<Content extends ContentFacts = ContentFacts, Composable = unknown> =
  | {
      readonly kind: 'ready';
      readonly converted: Content;
      readonly composable: Composable;
      readonly cache: CacheStatus;
      /** With a shared tier (several replicas): how the local miss went through it. */
      readonly sharedCache?: SharedCacheStatus;
      readonly durationMs: number;
      /** With `cache: 'stale'`: why the fresh read failed (the stale copy went in instead). */
      readonly staleError?: ContextError;
    }
  | {
      /** Left out before any read, for a reason the listing gave (audience, size). */
      readonly kind: 'skipped';
      readonly status: 'omitted';
      readonly reason: string;
      readonly cache: CacheStatus;
      readonly durationMs: number;
    }
  | {
      readonly kind: 'failed';
      readonly status: 'denied' | 'error' | 'timeout' | 'input-required';
      readonly error: ContextError;
      readonly cache: CacheStatus;
      readonly durationMs: number;
    };

/** What the budget and render steps made of a ready attachment (the budget's `ComposedAttachment`). */
export interface ComposedFacts {
  readonly decision:
    | { readonly fate: 'whole' }
    | { readonly fate: 'truncated'; readonly contentTokens: number }
    | { readonly fate: 'omitted'; readonly reason: string };
  /** Tokens of this attachment's block; 0 when omitted. */
  readonly tokens: number;
  readonly originalTokens: number;
  readonly originalTokensEstimated: boolean;
  readonly omittedContents: readonly OmittedContent[];
  /** False when nothing in it is text or a part the model takes. */
  readonly injectable: boolean;
  /** Set when the budget or render step threw on it: its entry is an error, not an omission. */
  readonly failure?: ContextError;
}
