/**
 * Counts and cuts text in a model's tokens. The budget is exact only against the tokenizer
 * it was planned with: render, count and truncate with the same instance. It also assumes the
 * tokenizer splits text as tiktoken's o200k/cl100k pre-tokenizers do at the safe boundaries of
 * find-safe-boundary.ts (count-joined.ts adds known counts across them): a tokenizer whose tokens
 * span such a boundary needs the budget's `safetyMargin`.
 */
export interface Tokenizer {
  /** Identity for caches and traces, e.g. `tiktoken:o200k_base`. */
  readonly name: string;
  /** Tokens of `text`, special-token strings treated as plain text. */
  encode(text: string): Promise<Uint32Array>;
  /** Text of `tokens`; a multi-byte character cut at either end is dropped, never garbled. */
  decode(tokens: Uint32Array): string;
  count(text: string): Promise<number>;
  /**
   * Tokens from the start (or the end) of `text` until more than `limitTokens` are seen, so the
   * cost grows with the limit, not the text. Optional: without it the whole text is encoded.
   * `resume`, from the start only: an earlier bounded encoding of the same text from its start;
   * a tokenizer may go on from its end instead of encoding its tokens again (the result still
   * covers the text from its start). One that ignores `resume` is just as exact, only slower.
   */
  encodeWithin?(
    text: string,
    limitTokens: number,
    from: 'start' | 'end',
    resume?: BoundedEncoding,
  ): Promise<BoundedEncoding>;
  /**
   * The exact count of `text.slice(0, chars)`, read off `encoding` (tokens from the start of
   * `text`) without encoding again; undefined unless `chars` falls on a piece boundary the
   * encoding covers. Optional: without it, such prefixes are counted.
   */
  countPrefix?(text: string, encoding: BoundedEncoding, chars: number): number | undefined;
  /** Releases what the tokenizer holds (WASM memory); the instance is unusable after. */
  dispose(): void;
}

export interface BoundedEncoding {
  /** Tokens of `text.slice(start, end)`. */
  readonly tokens: Uint32Array;
  readonly start: number;
  readonly end: number;
  /** True when the whole text was encoded: `tokens.length` is its exact count. */
  readonly complete: boolean;
  /** The exact count of the whole text, when the tokenizer already knows it (a cached count). */
  readonly knownCount?: number;
  /**
   * True when the encoding stopped inside a pre-tokenizer piece longer than the limit could need
   * (a run of one letter, CJK or emoji without a break): `tokens` are then those of
   * `text.slice(start, end)` on its own, what a cut there shows, not the whole text's first (or
   * last) tokens; nothing goes on from it, and the whole count stays unknown.
   */
  readonly standalone?: true;
}
