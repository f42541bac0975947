import type { z } from 'zod';
import { ContextError } from '../errors.js';

/**
 * Validates options once, at construction. The error names the option path and the bad
 * value, e.g. `mcpServers.docs.url: Invalid URL (got "not a url")`.
 */
export function parseOptions<Schema extends z.ZodType>(
  schema: Schema,
  input: unknown,
  what: string,
): z.output<Schema> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = issue?.path.map(String).join('.') ?? '';
  const value = valueAt(input, issue?.path ?? []);
  const got = value === undefined || typeof value === 'function' ? '' : ` (got ${safeJson(value)})`;
  const field = path ? `${what}.${path}` : what;
  throw new ContextError('INVALID_OPTION', `${field}: ${issue?.message ?? 'invalid'}${got}`, {
    field,
    value,
  });
}

// --- Internal helpers ---

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let current: unknown = input;
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

function safeJson(value: unknown): string {
  try {
    const text = JSON.stringify(value);
    return text.length > 200 ? `${text.slice(0, 200)}…` : text;
  } catch {
    return String(value);
  }
}
