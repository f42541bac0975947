import type { ComposableAttachment } from '../budget/composable-attachment.js';
import type { ConvertedResource } from '../convert/convert-contents.js';
import type { ConverterRegistry } from '../convert/converter-registry.js';
import { type PrepareTarget, prepareAttachment } from '../convert/prepare-attachment.js';
import { ContextError } from '../errors.js';
import type { AccessLimits } from '../mcp/access-limits.js';
import { applyReadLimits } from '../mcp/apply-read-limits.js';
import type { CappedReadResult } from '../mcp/cap-read-result.js';
import { raceAbort } from '../mcp/race-abort.js';
import type { ServerOperations } from '../mcp/server-operations.js';
import type { AttachmentFate } from '../trace/attachment-fate.js';
import { inSpan, type Telemetry } from '../trace/telemetry.js';
import type { CacheStatus } from '../types.js';
import type { CacheRead, ContentCache } from './content-cache.js';
import type { DerivedCache } from './derived-cache.js';
import { measureContents } from './measure-contents.js';

/** What the fetch step reads: a resolved, authorized attachment. */
export interface FetchTarget extends PrepareTarget {
  /** Skip the cache for this attachment. */
  readonly bypassCache?: boolean;
}

/** An attachment after fetch → convert: ready for the budget, or failed with its reason. */
export type FetchedAttachment = AttachmentFate<ConvertedResource, ComposableAttachment>;

export interface FetchContext {
  /** Who the turn acts as, for the audit. */
  readonly actor: { readonly pipelineId: string; readonly agentId?: string };
  readonly servers: Pick<ServerOperations, 'has' | 'readResource'> & {
    /** Whether each principal has its own session and content at this server. */
    isPerUser(server: string): boolean;
  };
  /** The turn's user (see `Turn.principal`). */
  readonly principal?: string;
  /** Absent when the provider runs without a cache. */
  readonly cache: ContentCache | undefined;
  /** Skip the cache for every attachment of this turn. */
  readonly bypassCache: boolean;
  /** Aborts on the host's signal or the turn deadline. */
  readonly signal: AbortSignal;
  /** The turn deadline alone, to tell a deadline from a host abort. */
  readonly deadline: AbortSignal;
  readonly readTimeoutMs: number;
  /** Conversions and token counts of unchanged content, kept across turns. */
  readonly derived?: DerivedCache;
  /** The provider's converters (the defaults plus any the host registered). */
  readonly converters?: ConverterRegistry;
  /** The access binding's media types and byte cap, applied after the (shared) read. */
  readonly limits?: AccessLimits;
  /**
   * Checks the read before it is converted (a skill's digest, size and frontmatter); a throw makes
   * the attachment an error, and nothing of the content is used.
   */
  readonly verify?: (read: CappedReadResult) => void;
  /** Spans for the fetch and convert steps, children of the attachment's span. */
  readonly telemetry?: Telemetry;
}

/**
 * Step 3, fetch: reads one attachment from its server's session, then converts it. A failure becomes an error
 * or timeout outcome for the trace, never content.
 */
export async function fetchAttachment(
  attachment: FetchTarget,
  context: FetchContext,
): Promise<FetchedAttachment> {
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  try {
    if (!context.servers.has(attachment.server)) {
      throw new ContextError('UNKNOWN_SERVER', `no MCP server named "${attachment.server}" is configured`, {
        server: attachment.server,
      });
    }
    // The read is shared with concurrent turns (single-flight), so it carries only its own
    // timeout; this turn's deadline and abort apply to its wait alone.
    const principal = context.principal;
    const readFromServer = () =>
      context.servers.readResource(attachment.server, attachment.uri, {
        timeoutMs: context.readTimeoutMs,
        // The audit names the pipeline whose turn started the (possibly shared) read.
        actor: context.actor,
        ...(principal !== undefined && { principal }),
      });
    // Invariant 9: a per-user server's content is keyed by its principal, so no other
    // principal's turn can be served it (cache hit, single-flight join or stale copy alike).
    const partition = context.servers.isPerUser(attachment.server) ? principal : undefined;
    const read = await inSpan(context.telemetry, 'mcp-context fetch', undefined, async () =>
      context.cache
        ? await context.cache.read(
            {
              server: attachment.server,
              uri: attachment.uri,
              ...(partition !== undefined && { principal: partition }),
              bypass: context.bypassCache || attachment.bypassCache === true,
              signal: context.signal,
            },
            readFromServer,
          )
        : ({
            content: {
              ...measureContents(await raceAbort(readFromServer(), context.signal)),
              fetchedAt: Date.now(),
            },
            cache: 'bypass',
          } satisfies CacheRead),
    );
    if (read.cache !== 'hit' && read.content.bytes >= yieldAboveBytes) {
      // Fresh reads that arrive together are converted one per timer tick, so the turn deadline
      // (a timer that is due first) fires between them; once it has, nothing more is converted
      // for this turn. (setImmediate would not do: every immediate queued in one check phase
      // runs before any timer.) A cache hit's conversion is normally kept: no wait for it.
      await new Promise((resolve) => setTimeout(resolve, 0));
      context.signal.throwIfAborted();
    }
    const result = context.limits
      ? applyReadLimits(read.content.result, context.limits, attachment)
      : read.content.result;
    context.verify?.(result);
    const { converted, composable } = await inSpan(context.telemetry, 'mcp-context convert', undefined, () =>
      prepareAttachment(attachment, result, {
        ...(context.converters && { converters: context.converters }),
        // A read cut by the binding's byte cap is not the content its hash names: not shared.
        ...(context.derived &&
          result === read.content.result && {
            derived: { cache: context.derived, sha256: read.content.sha256 },
          }),
      }),
    );
    return {
      kind: 'ready',
      composable,
      converted,
      cache: read.cache,
      ...(read.shared && { sharedCache: read.shared }),
      ...(read.error !== undefined && { staleError: toFailure(read.error, attachment) }),
      durationMs: elapsed(),
    };
  } catch (error) {
    const failure = context.signal.aborted
      ? new ContextError(
          'ABORTED',
          `reading ${attachment.uri} was aborted`,
          { server: attachment.server },
          error,
        )
      : toFailure(error, attachment);
    const cache: CacheStatus =
      !context.cache || context.bypassCache || attachment.bypassCache === true ? 'bypass' : 'miss';
    if (failure.code === 'ABORTED' && context.deadline.aborted) {
      const deadlineError = new ContextError(
        'TURN_DEADLINE',
        `reading ${attachment.uri} did not finish before the turn deadline`,
        { server: attachment.server },
        failure,
      );
      return { kind: 'failed', status: 'timeout', error: deadlineError, cache, durationMs: elapsed() };
    }
    const status =
      failure.code === 'READ_TIMEOUT' ? 'timeout' : failure.code === 'POLICY_DENIED' ? 'denied' : 'error';
    return { kind: 'failed', status, error: failure, cache, durationMs: elapsed() };
  }
}

// --- Internal helpers ---

/** Content smaller than this converts in well under a millisecond: no yield before it. */
const yieldAboveBytes = 64 * 1024;

function toFailure(error: unknown, attachment: FetchTarget): ContextError {
  return ContextError.isInstance(error)
    ? error
    : // Not a protocol failure: a bug or an unexpected throw on our side, named as such.
      new ContextError(
        'INTERNAL_ERROR',
        `${attachment.uri}: ${String(error)}`,
        { server: attachment.server },
        error,
      );
}
