/**
 * Counts and cuts text in a model's tokens. The budget is exact only against the tokenizer
 * it was planned with: render, count and truncate with the same instance. A tokenizer that
 * says it is `piecewise` (tiktoken's o200k/cl100k) lets the budget add known counts across
 * the safe boundaries of find-safe-boundary.ts (count-joined.ts, the sum of a rendering's
 * blocks); any other is counted on whole renderings, which is exact for any tokenizer.
 */
export interface Tokenizer {
  /** Identity for caches and traces, e.g. `tiktoken:o200k_base`. */
  readonly name: string;
  /**
   * True when text splits as tiktoken's o200k/cl100k pre-tokenizers split it: no token spans a
   * safe boundary of find-safe-boundary.ts, so counts of the parts between them add up to the
   * whole's. Absent or false: the budget counts whole renderings (SentencePiece and other
   * Hugging Face tokenizers merge across such boundaries).
   */
  readonly piecewise?: boolean;
  /**
   * False when the count is an estimate of the model's own tokenizer (Claude: o200k calibrated):
   * the budget then holds back `margin` of it. Absent: taken as exact for the model it serves.
   */
  readonly exact?: boolean;
  /** Fraction of the budget held back for an estimated count (0 to 0.5); absent: 0. */
  readonly margin?: number;
  /** Tokens of `text`, special-token strings treated as plain text. */
  encode(text: string): Promise<Uint32Array>;
  /** Text of `tokens`; a multi-byte character cut at either end is dropped, never garbled. */
  decode(tokens: Uint32Array): string;
  count(text: string): Promise<number>;
  /**
   * `count(text)` without waiting, for a text short enough to count at once (a marker, a join, a
   * chunk), else undefined (then `count`). Optional: the budget awaits `count` without it. It saves
   * a turn that adds up hundreds of short counts (a `relevant` cut's markers and joins) a promise each.
   * `keep: false` for a text no later call asks about (a body's chunk, whose count the body's chunk
   * index keeps): a tokenizer that keeps short counts need not keep this one. Absent: true.
   */
  countShort?(text: string, keep?: boolean): number | undefined;
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
