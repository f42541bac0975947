import { z } from 'zod';
import { ContextError, type ContextErrorCode } from '../errors.js';

/**
 * The most UTF-8 bytes an id or a URI may have when it crosses the API boundary (pins, unpin,
 * lists, a turn's ids, message attachments, the registry's principal). Every store holds what
 * these admit, and keeps apart what they keep apart:
 * - `id`: pipeline, conversation, agent, principal, turn and pin ids; server names.
 * - `uri`: a URI, given or expanded from a template. PostgreSQL's unique index on a pin's
 *   (scope kind, scope id, server, URI) must hold the row: a btree entry is at most 2704 bytes
 *   (a third of an 8 KiB page, less overhead), measured to fit a URI of 2156 incompressible
 *   bytes beside a 256-byte scope id and server name; 2048 leaves room to spare.
 * - `template`: a URI template as given (not indexed; what it expands to is a `uri`).
 */
export const boundaryLimits = { id: 256, uri: 2048, template: 8192 } as const;

export type BoundaryKind = keyof typeof boundaryLimits;

/**
 * Why `text` cannot cross the API boundary as a `kind`, or undefined when it can: it must be
 * non-empty, well-formed Unicode (no lone UTF-16 surrogate: PostgreSQL stores one as U+FFFD,
 * which would make two different ids one), hold no NUL (no PostgreSQL text can) and be within
 * the kind's byte limit. The message states the whole rule, so that it names the limit.
 */
export function boundaryViolation(text: string, kind: BoundaryKind): string | undefined {
  const limit = boundaryLimits[kind];
  const rule = `${articles[kind]} is 1 to ${limit} bytes of well-formed UTF-8 without NUL`;
  if (text.length === 0) return `${rule}; this one is empty`;
  const nul = text.indexOf('\u0000');
  if (nul >= 0) return `${rule}; this one holds NUL at index ${nul}`;
  const lone = loneSurrogate.exec(text);
  if (lone) {
    const unit = lone[0].charCodeAt(0).toString(16).toUpperCase();
    return `${rule}; this one holds a lone surrogate (U+${unit} at index ${lone.index})`;
  }
  // A UTF-16 code unit is at most 3 bytes of UTF-8 (a surrogate pair is 4 for two units).
  if (text.length * 3 <= limit) return undefined;
  const bytes = Buffer.byteLength(text, 'utf8');
  return bytes > limit ? `${rule}; this one is ${bytes} bytes` : undefined;
}

/**
 * `value` as a `kind` that may cross the boundary, or a ContextError with `code`, naming
 * `field`, its rule and (as `limit`) the byte limit. Not a string: the same error, saying so.
 */
export function requireBoundaryText(
  value: unknown,
  kind: BoundaryKind,
  field: string,
  code: ContextErrorCode,
): string {
  const problem =
    typeof value === 'string'
      ? boundaryViolation(value, kind)
      : `${articles[kind]} is a string, not ${value === null ? 'null' : typeof value}`;
  if (problem === undefined) return value as string;
  throw new ContextError(code, `${field}: ${problem}${describeValue(value)}`, {
    field,
    value,
    limit: boundaryLimits[kind],
  });
}

/**
 * The same rule as a zod string, for schemas (pins, message attachments, the registry's call
 * options): its issue carries the limit, which `parseOptions` reports as the error's `limit`.
 */
export function boundaryTextSchema(kind: BoundaryKind) {
  return z.string().superRefine((text, context) => {
    const problem = boundaryViolation(text, kind);
    if (problem !== undefined)
      context.addIssue({ code: 'custom', message: problem, params: { limit: boundaryLimits[kind] } });
  });
}

// --- Internal helpers ---

const articles: Record<BoundaryKind, string> = { id: 'an id', uri: 'a URI', template: 'a template' };

// Without the `u` flag a regular expression sees UTF-16 code units: a high surrogate not followed
// by a low one, or a low one not preceded by a high one (`String.prototype.isWellFormed` is Node 22).
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The bad value as JSON (which escapes NUL and lone surrogates), cut to a few words. */
function describeValue(value: unknown): string {
  if (typeof value !== 'string') return '';
  const text = JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
  return ` (got ${text})`;
}
