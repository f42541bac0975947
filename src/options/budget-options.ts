import { z } from 'zod';
import type { BudgetOptions, TruncationStrategyName } from '../types.js';

export const truncationStrategyNames = [
  'head',
  'tail',
  'head-tail',
  'relevant',
] as const satisfies readonly TruncationStrategyName[];

/**
 * The budget's fields, without defaults: the one definition of the budget options. The
 * provider's options, a turn's override and the config file's `budget` are all built from it.
 */
const budgetFields = {
  /** Tokens the whole rendered context may take: preamble, frames and markers included. */
  maxTokens: z.number().int().positive(),
  /** Below this many content tokens an attachment is omitted rather than injected as a stub. Default 64. */
  minTokens: z.number().int().nonnegative(),
  /** `fair` (default): max-min water-filling across attachments; `priority`: greedy in rank order. */
  strategy: z.enum(['fair', 'priority']),
  /**
   * How a resource that does not fit is cut: `head` (default), `tail`, `head-tail` (middle
   * elided), or `relevant` (the chunks most relevant to `turn.message.text`, in document order).
   */
  truncation: z.enum(truncationStrategyNames),
  /** Cut at a line end when one is close to the cut (default true). */
  lineAware: z.boolean(),
  /**
   * Fraction of `maxTokens` held back for a model whose tokenizer differs from the one counting
   * (e.g. 0.1 for Claude against o200k_base). Default 0.
   */
  safetyMargin: z.number().min(0).max(0.5),
  /**
   * Tokens held for a scope's attachments, e.g. `{ message: 2000 }` so that what the user attached
   * to this message always gets room: each reserved scope is planned within its reservation
   * first (narrowest first), then the rest of the budget is shared as usual.
   */
  reserve: z.strictObject({
    message: z.number().int().nonnegative().optional(),
    conversation: z.number().int().nonnegative().optional(),
    pipeline: z.number().int().nonnegative().optional(),
  }),
};

/** The provider's `budget` (and the config file's): `maxTokens` required, the rest defaulted. */
export const budgetOptionsSchema = z.strictObject({
  ...budgetFields,
  minTokens: budgetFields.minTokens.default(64),
  strategy: budgetFields.strategy.default('fair'),
  truncation: budgetFields.truncation.default('head'),
  lineAware: budgetFields.lineAware.default(true),
  safetyMargin: budgetFields.safetyMargin.default(0),
  reserve: budgetFields.reserve.optional(),
});

/** A turn's `budget`: any of the fields, merged over the provider's; none resets what it omits. */
export const budgetOverrideSchema = z.strictObject(budgetFields).partial();

export type ResolvedBudget = z.output<typeof budgetOptionsSchema>;

// The public BudgetOptions type (types.ts, which sits below every folder) and this schema must
// agree field for field: a field added to one and not the other fails the type check here.
type Assignable<From, To> = [From] extends [To] ? true : false;
const schemaMatchesType: Assignable<z.input<typeof budgetOptionsSchema>, BudgetOptions> &
  Assignable<BudgetOptions, z.input<typeof budgetOptionsSchema>> &
  Assignable<keyof BudgetOptions, keyof z.input<typeof budgetOptionsSchema>> &
  Assignable<keyof z.input<typeof budgetOptionsSchema>, keyof BudgetOptions> &
  Assignable<TruncationStrategyName, (typeof truncationStrategyNames)[number]> = true;
void schemaMatchesType;
