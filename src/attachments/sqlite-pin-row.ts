import { ContextError } from '../errors.js';
import type { Attachment } from '../types.js';
import { markUnreadable } from './unreadable-pins.js';

/** One row of `mcp_context_pins` (see sqlite-migrations.ts). */
export interface PinRow {
  readonly id: string;
  readonly scope_kind: 'pipeline' | 'conversation';
  readonly scope_id: string;
  readonly server: string;
  readonly target_uri: string;
  readonly uri: string | null;
  readonly template: string | null;
  readonly arguments_json: string | null;
  readonly priority: number | null;
  readonly max_tokens: number | null;
  readonly added_at: string;
  /** 1 when set (schema version 2); null otherwise. */
  readonly ignore_audience: number | null;
  readonly skill: number | null;
  /**
   * The row's version: SQLite's column (schema version 3), raised on every update; PostgreSQL's
   * `xmin`, the transaction that wrote the row version. Absent from a row a store writes.
   */
  readonly version?: number | string;
}

export function toPinRow(attachment: Attachment, targetUri: string): PinRow {
  const scope = attachment.scope;
  return {
    id: attachment.id,
    scope_kind: 'pipelineId' in scope ? 'pipeline' : 'conversation',
    scope_id: 'pipelineId' in scope ? scope.pipelineId : scope.conversationId,
    server: attachment.server,
    target_uri: targetUri,
    uri: 'uri' in attachment ? attachment.uri : null,
    template: 'template' in attachment ? attachment.template : null,
    arguments_json: 'template' in attachment ? JSON.stringify(attachment.arguments) : null,
    priority: attachment.priority ?? null,
    max_tokens: attachment.maxTokens ?? null,
    added_at: attachment.addedAt,
    ignore_audience: attachment.ignoreAudience ? 1 : null,
    skill: attachment.skill ? 1 : null,
  };
}

/**
 * The stored pin, shaped exactly as `pin()` returned it (absent options stay absent). A template
 * row whose arguments cannot be read is listed with none, marked unreadable: a turn traces it as
 * STORE_CORRUPT and injects the other pins.
 */
export function toAttachment(row: PinRow, path: string): Attachment {
  const scope =
    row.scope_kind === 'pipeline' ? { pipelineId: row.scope_id } : { conversationId: row.scope_id };
  const parsed = row.template !== null ? parseArguments(row, path) : undefined;
  const target =
    row.template !== null
      ? { template: row.template, arguments: parsed instanceof ContextError ? {} : (parsed ?? {}) }
      : { uri: row.uri ?? '' };
  const attachment = {
    server: row.server,
    ...target,
    ...(row.priority !== null && { priority: row.priority }),
    ...(row.max_tokens !== null && { maxTokens: row.max_tokens }),
    ...(row.ignore_audience ? { ignoreAudience: true } : {}),
    ...(row.skill ? { skill: true } : {}),
    scope,
    id: row.id,
    addedAt: row.added_at,
    ...(row.version !== undefined && { version: String(row.version) }),
  } as Attachment;
  return parsed instanceof ContextError ? markUnreadable(attachment, parsed) : attachment;
}

// --- Internal helpers ---

function parseArguments(row: PinRow, path: string): Record<string, string | string[]> | ContextError {
  try {
    const value: unknown = JSON.parse(row.arguments_json ?? '{}');
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      return value as Record<string, string | string[]>;
    }
  } catch {
    // Reported below, with the pin's id.
  }
  return new ContextError('STORE_CORRUPT', `${path}: pin ${row.id} has unreadable template arguments`, {
    field: 'arguments_json',
    value: row.id,
  });
}
