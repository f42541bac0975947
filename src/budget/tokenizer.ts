/**
 * Counts and cuts text in a model's tokens. The budget is exact only against the tokenizer
 * it was planned with: render, count and truncate with the same instance.
 */
export interface Tokenizer {
  /** Identity for caches and traces, e.g. `tiktoken:o200k_base`. */
  readonly name: string;
  /** Tokens of `text`, special-token strings treated as plain text. */
  encode(text: string): Promise<Uint32Array>;
  /** Text of `tokens`; a multi-byte character cut at either end is dropped, never garbled. */
  decode(tokens: Uint32Array): string;
  count(text: string): Promise<number>;
  /** Releases what the tokenizer holds (WASM memory); the instance is unusable after. */
  dispose(): void;
}
