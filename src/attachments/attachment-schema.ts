import { z } from 'zod';
import { ContextError } from '../errors.js';
import { parseOptions } from '../options/parse-options.js';
import type { MessageAttachment, PinInput } from '../types.js';

const identifier = z.string().min(1).max(256);

const scopeSchema = z.union([
  z.strictObject({ pipelineId: identifier }),
  z.strictObject({ conversationId: identifier }),
]);

// One object with optional uri/template rather than a union: errors then name the exact field.
const messageAttachmentSchema = z
  .strictObject({
    server: identifier,
    uri: z.string().min(1).max(8192).optional(),
    template: z.string().min(1).max(8192).optional(),
    arguments: z.record(z.string(), z.union([z.string(), z.array(z.string())])).optional(),
    priority: z.number().int().min(-1000).max(1000).optional(),
    maxTokens: z.number().int().positive().optional(),
    bypassCache: z.boolean().optional(),
    ignoreAudience: z.boolean().optional(),
    skill: z.boolean().optional(),
  })
  .superRefine((value, context) => {
    if ((value.uri === undefined) === (value.template === undefined)) {
      context.addIssue({ code: 'custom', message: 'give exactly one of uri or template', path: [] });
    } else if (value.uri !== undefined && value.arguments !== undefined) {
      context.addIssue({
        code: 'custom',
        message: 'arguments go with a template, not a uri',
        path: ['arguments'],
      });
    }
  })
  .transform((value) =>
    value.template !== undefined ? { ...value, arguments: value.arguments ?? {} } : value,
  );

const pinInputSchema = z
  .object({ scope: scopeSchema })
  .passthrough()
  .transform((value, context) => {
    const { scope, ...target } = value;
    const parsed = messageAttachmentSchema.safeParse(target);
    if (parsed.success) return { ...parsed.data, scope };
    for (const issue of parsed.error.issues) context.addIssue({ ...issue, code: 'custom', path: issue.path });
    return z.NEVER;
  });

/** Validates what a host hands to `pin()`; names the bad field. */
export function parsePinInput(input: unknown): PinInput {
  return parseWith(pinInputSchema, input, 'pin') as PinInput;
}

/** Validates one attachment that arrived with a message. */
export function parseMessageAttachment(input: unknown, index: number): MessageAttachment {
  return parseWith(messageAttachmentSchema, input, `message.attachments[${index}]`) as MessageAttachment;
}

// --- Internal helpers ---

function parseWith(schema: z.ZodType, input: unknown, what: string): unknown {
  try {
    return parseOptions(schema, input, what);
  } catch (error) {
    // Same message and facts, but the code says an attachment was wrong, not an option.
    if (!ContextError.isInstance(error)) throw error;
    throw new ContextError('INVALID_ATTACHMENT', error.message, { field: error.field, value: error.value });
  }
}
