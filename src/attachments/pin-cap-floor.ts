import { z } from 'zod';
import { smallestUsefulCut } from '../budget/smallest-useful-cut.js';
import { createTiktokenTokenizer } from '../budget/tiktoken-tokenizer.js';
import type { Tokenizer } from '../budget/tokenizer.js';
import { ContextError } from '../errors.js';
import type { PinInput } from '../types.js';

/**
 * What a store needs to refuse a pin's `maxTokens` below the smallest useful cut: the budget's
 * `minTokens` and the tokenizer the provider counts with. Give the provider's when they differ
 * from the defaults.
 */
export const pinCapShape = {
  /** The provider's `budget.minTokens` (default 64). */
  minTokens: z.number().int().nonnegative().default(64),
  /** The provider's tokenizer (default tiktoken `o200k_base`, created on the first capped pin). */
  tokenizer: z
    .custom<Tokenizer>(
      (value) =>
        typeof value === 'object' &&
        value !== null &&
        ['encode', 'decode', 'count'].every(
          (name) => typeof (value as Record<string, unknown>)[name] === 'function',
        ),
      { message: 'tokenizer must be a Tokenizer' },
    )
    .optional(),
};

export type PinCapOptions = z.input<z.ZodObject<typeof pinCapShape>>;

/**
 * Checks pin caps against `smallestUsefulCut`, the same overhead the planner charges a cut: a
 * pin with `maxTokens` below it would be omitted on every turn its content does not fit whole,
 * so it is refused when pinned, with the minimum named.
 */
export class PinCapFloor {
  readonly #minTokens: number;
  readonly #given: Tokenizer | undefined;
  #created: Tokenizer | undefined;

  constructor(options: { readonly minTokens: number; readonly tokenizer?: Tokenizer | undefined }) {
    this.#minTokens = options.minTokens;
    this.#given = options.tokenizer;
  }

  /** Throws INVALID_ATTACHMENT (field `pin.maxTokens`, `limit` the minimum) for a cap below the floor. */
  async check(pin: PinInput, targetUri: string): Promise<void> {
    const cap = pin.maxTokens;
    if (cap === undefined) return;
    const scope = 'pipelineId' in pin.scope ? 'pipeline' : 'conversation';
    const minimum = await smallestUsefulCut(
      { scope, server: pin.server, uri: targetUri },
      this.#tokenizer(),
      this.#minTokens,
    );
    if (cap >= minimum) return;
    throw new ContextError(
      'INVALID_ATTACHMENT',
      `pin.maxTokens ${cap} is below ${minimum}, the smallest useful cut of ${pin.server} ${targetUri} ` +
        `(its frame and truncation marker plus minTokens ${this.#minTokens}): a cut of it could never be ` +
        `injected; give maxTokens ${minimum} or more, or none`,
      { field: 'pin.maxTokens', value: cap, limit: minimum },
    );
  }

  /** Frees the tokenizer this floor created (never one it was given). */
  dispose(): void {
    this.#created?.dispose();
    this.#created = undefined;
  }

  #tokenizer(): Tokenizer {
    if (this.#given) return this.#given;
    this.#created ??= createTiktokenTokenizer();
    return this.#created;
  }
}
