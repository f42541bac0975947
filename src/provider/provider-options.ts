import { z } from 'zod';
import { ContentCache, cacheOptionsSchema } from '../cache/content-cache.js';
import { budgetOptionsSchema } from '../options/budget-options.js';
import { skillLimitsSchema } from '../skills/skill-limits.js';

const hasMethods =
  (...names: string[]) =>
  (value: unknown) =>
    typeof value === 'object' &&
    value !== null &&
    names.every((name) => typeof (value as Record<string, unknown>)[name] === 'function');

/**
 * Server `initialize` instructions in a turn. Off by default: they are written for agents that
 * call the server's tools (server-everything's run to ~400 tokens) and would be paid for on
 * every turn. On: `{ maxTokens: 512 }`, and `exclude` names servers whose instructions never go in.
 */
export const serverInstructionsSchema = z
  .union([
    z.literal(false),
    z.strictObject({
      maxTokens: z.number().int().positive(),
      exclude: z.array(z.string().min(1)).default([]),
    }),
  ])
  .default(false);

/**
 * The provider's settings that are plain data: the config file (`mcp-context.json`) takes
 * exactly these, through this same schema.
 */
export const providerSettingsShape = {
  budget: budgetOptionsSchema,
  serverInstructions: serverInstructionsSchema,
  /** Per-read timeout, in milliseconds. */
  readTimeoutMs: z.number().int().positive().default(10_000),
  /** The whole turn's deadline: provide() returns by then, whatever the servers do. */
  turnDeadlineMs: z.number().int().positive().default(30_000),
  /** Tokenizer files by family: open models' tokenizer.json by model id, a Gemma 3 one for Gemini. */
  tokenizers: z
    .strictObject({
      huggingFace: z.record(z.string().min(1), z.string().min(1)).optional(),
      gemini: z.string().min(1).optional(),
    })
    .optional(),
};

export const providerOptionsSchema = z.strictObject({
  servers: z.custom<object>(hasMethods('readResource', 'has'), {
    message: 'servers must be an McpServerRegistry',
  }),
  attachments: z.custom<object>(hasMethods('pin', 'unpin', 'list'), {
    message: 'attachments must be an AttachmentStore',
  }),
  policy: z.custom<object>(hasMethods('authorize', 'bind'), { message: 'policy must be an AccessPolicy' }),
  ...providerSettingsShape,
  tokenizer: z.custom<object>(hasMethods('encode', 'decode', 'count')).optional(),
  converters: z
    .custom<object>(hasMethods('find', 'register'), { message: 'converters must be a ConverterRegistry' })
    .optional(),
  /** Caps on skills loaded from skill pins: files and bytes per skill, skills per turn. */
  skills: skillLimitsSchema.prefault({}),
  cache: z
    .union([
      z.literal(false),
      z.custom<ContentCache>((value) => value instanceof ContentCache, {
        message: 'cache must be a ContentCache, its options, or false',
      }),
      cacheOptionsSchema,
    ])
    .optional(),
  telemetry: z
    .custom<object>(hasMethods('startSpan', 'withSpan', 'recordTurn'), {
      message: 'telemetry must come from openTelemetry()',
    })
    .optional(),
  keptTurns: z
    .union([
      z.literal(false),
      z.strictObject({
        maxTurns: z.number().int().positive().default(1_000),
        maxBytes: z
          .number()
          .int()
          .positive()
          .default(32 * 1024 * 1024),
      }),
    ])
    .default({ maxTurns: 1_000, maxBytes: 32 * 1024 * 1024 }),
});

export { budgetOverrideSchema, type ResolvedBudget } from '../options/budget-options.js';
