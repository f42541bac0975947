import { z } from 'zod';
import { skillLimitsSchema } from '../skills/skill-limits.js';

// The fields without defaults: a per-turn override must not reset what it does not mention.
const budgetFields = {
  maxTokens: z.number().int().positive(),
  minTokens: z.number().int().nonnegative(),
  strategy: z.enum(['fair', 'priority']),
  truncation: z.enum(['head', 'tail', 'head-tail', 'relevant']),
  lineAware: z.boolean(),
  /** Held back for a model whose tokenizer differs from the counting one (e.g. 0.1 for Claude). */
  safetyMargin: z.number().min(0).max(0.5),
  /** Tokens held for each scope's attachments before the rest is shared. */
  reserve: z.strictObject({
    message: z.number().int().nonnegative().optional(),
    conversation: z.number().int().nonnegative().optional(),
    pipeline: z.number().int().nonnegative().optional(),
  }),
};

const budgetSchema = z.strictObject({
  ...budgetFields,
  minTokens: budgetFields.minTokens.default(64),
  strategy: budgetFields.strategy.default('fair'),
  truncation: budgetFields.truncation.default('head'),
  lineAware: budgetFields.lineAware.default(true),
  safetyMargin: budgetFields.safetyMargin.default(0),
  reserve: budgetFields.reserve.optional(),
});

const hasMethods =
  (...names: string[]) =>
  (value: unknown) =>
    typeof value === 'object' &&
    value !== null &&
    names.every((name) => typeof (value as Record<string, unknown>)[name] === 'function');

export const providerOptionsSchema = z.object({
  servers: z.custom<object>(hasMethods('readResource', 'has'), {
    message: 'servers must be an McpServerRegistry',
  }),
  attachments: z.custom<object>(hasMethods('pin', 'unpin', 'list'), {
    message: 'attachments must be an AttachmentStore',
  }),
  policy: z.custom<object>(hasMethods('authorize', 'bind'), { message: 'policy must be an AccessPolicy' }),
  budget: budgetSchema,
  tokenizer: z.custom<object>(hasMethods('encode', 'decode', 'count')).optional(),
  converters: z
    .custom<object>(hasMethods('find', 'register'), { message: 'converters must be a ConverterRegistry' })
    .optional(),
  serverInstructions: z
    .union([z.literal(false), z.strictObject({ maxTokens: z.number().int().positive() })])
    .default({ maxTokens: 512 }),
  /** Per-read timeout, in milliseconds. */
  readTimeoutMs: z.number().int().positive().default(10_000),
  /** The whole turn's deadline: provide() returns by then, whatever the servers do. */
  turnDeadlineMs: z.number().int().positive().default(30_000),
  /** Caps on skills loaded from skill pins: files and bytes per skill, skills per turn. */
  skills: skillLimitsSchema.prefault({}),
});

/** A turn's budget override, merged over the provider's budget. */
export const budgetOverrideSchema = z.strictObject(budgetFields).partial();

export type ResolvedBudget = z.output<typeof budgetSchema>;
