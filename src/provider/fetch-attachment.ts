import type { ResolvedAttachment } from '../attachments/resolve-turn-attachments.js';
import type { Tokenizer } from '../budget/tokenizer.js';
import type { ConvertedResource } from '../convert/convert-contents.js';
import { ContextError } from '../errors.js';
import type { McpServerRegistry } from '../mcp/mcp-server-registry.js';
import type { TraceStatus } from '../types.js';
import type { ComposableAttachment } from './compose-context.js';
import { prepareAttachment } from './prepare-attachment.js';

/** An attachment after authorize → fetch → convert: ready for the budget, or already decided. */
export interface PreparedAttachment {
  readonly attachment: ResolvedAttachment;
  /** Set when the attachment goes on to the budget. */
  readonly composable?: ComposableAttachment;
  readonly converted?: ConvertedResource;
  /** Set when its fate is already decided (denied, error, timeout). */
  readonly status?: TraceStatus;
  readonly error?: ContextError;
  readonly durationMs: number;
}

export interface FetchContext {
  readonly servers: McpServerRegistry;
  readonly tokenizer: Tokenizer;
  /** Aborts on the host's signal or the turn deadline. */
  readonly signal: AbortSignal;
  /** The turn deadline alone, to tell a deadline from a host abort. */
  readonly deadline: AbortSignal;
  readonly readTimeoutMs: number;
}

/**
 * Step 3, fetch: reads one attachment from its server's session, then converts it. A failure becomes an error
 * or timeout outcome for the trace, never content.
 */
export async function fetchAttachment(
  attachment: ResolvedAttachment,
  context: FetchContext,
): Promise<PreparedAttachment> {
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  try {
    if (!context.servers.has(attachment.server)) {
      throw new ContextError('UNKNOWN_SERVER', `no MCP server named "${attachment.server}" is configured`, {
        server: attachment.server,
      });
    }
    const result = await context.servers.readResource(attachment.server, attachment.uri, {
      signal: context.signal,
      timeoutMs: context.readTimeoutMs,
    });
    const { converted, composable } = await prepareAttachment(attachment, result, context.tokenizer);
    return { attachment, composable, converted, durationMs: elapsed() };
  } catch (error) {
    const failure = ContextError.isInstance(error)
      ? error
      : new ContextError('PROTOCOL_ERROR', String(error), { server: attachment.server }, error);
    if (failure.code === 'ABORTED' && context.deadline.aborted) {
      const deadlineError = new ContextError(
        'TURN_DEADLINE',
        `reading ${attachment.uri} did not finish before the turn deadline`,
        { server: attachment.server },
        failure,
      );
      return { attachment, status: 'timeout', error: deadlineError, durationMs: elapsed() };
    }
    const status = failure.code === 'READ_TIMEOUT' ? 'timeout' : 'error';
    return { attachment, status, error: failure, durationMs: elapsed() };
  }
}
