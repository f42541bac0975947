import { z } from 'zod';

/** `list_mcp_resources` arguments. */
export const listResourcesArgumentsSchema = z.strictObject({
  server: z
    .string()
    .min(1)
    .optional()
    .describe('Only this server. Without it: every server this pipeline may read.'),
  cursor: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Continue a listing: the nextCursor a previous call returned for `server` (requires `server`).',
    ),
});

/** `read_mcp_resource` arguments. */
export const readResourceArgumentsSchema = z.strictObject({
  server: z.string().min(1).describe('The server that owns the resource.'),
  uri: z.string().min(1).describe('The resource URI, exactly as listed.'),
  offset: z
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe('Token offset to start from: the `offset` of a truncation marker. Default 0.'),
  maxTokens: z
    .number()
    .int()
    .positive()
    .optional()
    .describe('Most tokens for the answer; capped by the host.'),
});

export type ListResourcesArguments = z.output<typeof listResourcesArgumentsSchema>;
export type ReadResourceArguments = z.output<typeof readResourceArgumentsSchema>;
