import { z } from 'zod';

const budgetSchema = z.strictObject({
  maxTokens: z.number().int().positive(),
  minTokens: z.number().int().nonnegative().default(64),
  strategy: z.enum(['fair', 'priority']).default('fair'),
  truncation: z.enum(['head', 'tail', 'head-tail', 'relevant']).default('head'),
  lineAware: z.boolean().default(true),
  /** Held back for a model whose tokenizer differs from the counting one (e.g. 0.1 for Claude). */
  safetyMargin: z.number().min(0).max(0.5).default(0),
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
  policy: z.custom<object>(hasMethods('authorize'), { message: 'policy must be an AccessPolicy' }),
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
});

/** A turn's budget override, merged over the provider's budget. */
export const budgetOverrideSchema = budgetSchema.partial();

export type ResolvedBudget = z.output<typeof budgetSchema>;
