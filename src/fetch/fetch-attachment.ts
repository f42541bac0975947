import type { ComposableAttachment } from '../budget/composable-attachment.js';
import type { CachedContent, CacheRead, ContentCache } from '../cache/content-cache.js';
import type { DerivedCache } from '../cache/derived-cache.js';
import { measureContents } from '../cache/measure-contents.js';
import type { ConvertedResource } from '../convert/convert-contents.js';
import type { ConverterRegistry } from '../convert/converter-registry.js';
import { type Prepared, type PrepareTarget, prepareAttachment } from '../convert/prepare-attachment.js';
import { ContextError } from '../errors.js';
import type { AccessLimits } from '../mcp/access-limits.js';
import { applyReadLimits } from '../mcp/apply-read-limits.js';
import type { CappedReadResult } from '../mcp/cap-read-result.js';
import { raceAbort } from '../mcp/race-abort.js';
import type { ServerOperations } from '../mcp/server-operations.js';
import type { AttachmentFate } from '../trace/attachment-fate.js';
import { inSpan, type Telemetry } from '../trace/telemetry.js';
import type { CacheStatus, ScopeKind } from '../types.js';
import type { Writable } from '../writable.js';

/** What the fetch step reads: a resolved, authorized attachment. */
export interface FetchTarget extends PrepareTarget {
  /** Skip the cache for this attachment. */
  readonly bypassCache?: boolean;
  /** Pins of wider scopes merged into this attachment (a message attachment that is also pinned). */
  readonly superseded?: readonly { readonly scope: ScopeKind }[];
}

/** An attachment after fetch → convert: ready for the budget, or failed with its reason. */
export type FetchedAttachment = AttachmentFate<ConvertedResource, ComposableAttachment>;

/** What every attachment of one turn is fetched with: built once per turn. */
export interface FetchContext {
  /** Who the turn acts as, for the audit. */
  readonly actor: { readonly pipelineId: string; readonly agentId?: string };
  readonly servers: Pick<ServerOperations, 'has' | 'readResource'> & {
    /** Whether each principal has its own session and content at this server. */
    isPerUser(server: string): boolean;
    /** Which server the name stands for, as the cache keys it (`McpServerRegistry.identityOf`). */
    identityOf(server: string): string | Promise<string>;
  };
  /** The turn's user (see `Turn.principal`). */
  readonly principal?: string;
  /** Absent when the provider runs without a cache. */
  readonly cache: ContentCache | undefined;
  /** Skip the cache for every attachment of this turn. */
  readonly bypassCache: boolean;
  /**
   * The turn's signals: `signal` aborts on the host's signal or the turn deadline, `deadline` on
   * the deadline alone (to tell a deadline from a host abort). Asked for only where a read waits
   * or fails: a turn answered from the cache never makes them (the provider's TurnDeadline
   * makes them when first asked).
   */
  readonly until: { readonly signal: AbortSignal; readonly deadline: AbortSignal };
  /**
   * When the turn deadline falls, on the `performance.now()` clock: nothing read fresh is
   * converted after it, even before the deadline's timer has had a chance to fire.
   */
  readonly deadlineAt: number;
  readonly readTimeoutMs: number;
  /** Conversions and token counts of unchanged content, kept across turns. */
  readonly derived?: DerivedCache;
  /** The provider's converters (the defaults plus any the host registered). */
  readonly converters?: ConverterRegistry;
  /** Spans for the fetch and convert steps, children of the attachment's span. */
  readonly telemetry?: Telemetry;
  /** Where the content of each cache hit answered at once is collected: the versions the turn injects. */
  readonly hits?: CachedContent[];
}

/** What applies to one attachment's read alone. */
export interface ReadAccess {
  /** The access binding's media types and byte cap, applied after the (shared) read. */
  readonly limits?: AccessLimits;
  /**
   * Checks the read before it is converted (a skill's digest, size and frontmatter); a throw makes
   * the attachment an error, and nothing of the content is used.
   */
  readonly verify?: (read: CappedReadResult) => void;
}

/**
 * Step 3, fetch: reads one attachment from its server's session, then converts it. A failure becomes an error
 * or timeout outcome for the trace, never content. A fresh copy in the cache is answered at
 * once, without a promise: a warm turn waits on nothing it already holds.
 */
export function fetchAttachment(
  attachment: FetchTarget,
  context: FetchContext,
  access: ReadAccess = {},
): FetchedAttachment | Promise<FetchedAttachment> {
  const started = performance.now();
  const hit = peekContent(attachment, context);
  if (!hit) return fetchAnew(attachment, context, access, started);
  context.hits?.push(hit.content);
  const telemetry = context.telemetry;
  // With telemetry, a hit's fetch (the peek) and its conversion get their spans as a read's do.
  telemetry?.startSpan('mcp-context fetch')?.end();
  const span = telemetry?.startSpan('mcp-context convert');
  try {
    return span && telemetry
      ? telemetry.withSpan(span, () => convertRead(attachment, hit, context, access, started))
      : convertRead(attachment, hit, context, access, started);
  } catch (error) {
    span?.recordError(error);
    return failedFetch(error, attachment, context, started, hit.cache);
  } finally {
    span?.end();
  }
}

// --- Internal helpers ---

async function fetchAnew(
  attachment: FetchTarget,
  context: FetchContext,
  access: ReadAccess,
  started: number,
): Promise<FetchedAttachment> {
  let served: CacheStatus | undefined;
  try {
    if (!context.servers.has(attachment.server)) {
      throw new ContextError('UNKNOWN_SERVER', `no MCP server named "${attachment.server}" is configured`, {
        server: attachment.server,
      });
    }
    const read = await (context.telemetry
      ? inSpan(context.telemetry, 'mcp-context fetch', undefined, () => readContent(attachment, context))
      : readContent(attachment, context));
    served = read.cache;
    if (read.cache !== 'hit') {
      // Fresh reads that arrive together are converted back to back, with no timer tick between
      // them: the deadline is checked by the clock before each. Past it, nothing more is
      // converted for this turn. A cache hit's conversion is normally kept: no check for it.
      if (performance.now() >= context.deadlineAt) {
        throw new ContextError(
          'TURN_DEADLINE',
          `${attachment.uri} arrived after the turn deadline and was not converted`,
          { server: attachment.server },
        );
      }
      context.until.signal.throwIfAborted();
    }
    return context.telemetry
      ? await inSpan(context.telemetry, 'mcp-context convert', undefined, async () =>
          convertRead(attachment, read, context, access, started),
        )
      : convertRead(attachment, read, context, access, started);
  } catch (error) {
    return failedFetch(error, attachment, context, started, served);
  }
}

/** A read made ready for the budget: the binding's limits, the verification, the conversion. */
function convertRead(
  attachment: FetchTarget,
  read: CacheRead,
  context: FetchContext,
  access: ReadAccess,
  started: number,
): Extract<FetchedAttachment, { kind: 'ready' }> {
  const result = access.limits
    ? applyReadLimits(read.content.result, access.limits, attachment)
    : read.content.result;
  access.verify?.(result);
  // A read cut by the binding's byte cap is not the content its hash names: not shared.
  const shared = context.derived && result === read.content.result ? context.derived : undefined;
  const prepared = prepareAttachment(
    attachment,
    result,
    shared ? sharedPreparation(read.content, shared, context.converters) : { converters: context.converters },
  );
  const { converted, composable } = prepared;
  // A cache hit whose conversion an earlier call made (prepareAttachment answered an object it
  // answered before): nothing was read or converted, so its fate is the same every turn, with
  // durationMs 0 — one object, not a new one per attachment per warm turn.
  if (shared) {
    const kept = keptHits.get(prepared);
    if (!kept) keptHits.set(prepared, { kind: 'ready', composable, converted, cache: 'hit', durationMs: 0 });
    else if (read.cache === 'hit' && read.shared === undefined && read.error === undefined) return kept;
  }
  const ready: Writable<Extract<FetchedAttachment, { kind: 'ready' }>> = {
    kind: 'ready',
    composable,
    converted,
    cache: read.cache,
    durationMs: performance.now() - started,
  };
  if (read.shared) ready.sharedCache = read.shared;
  if (read.error !== undefined) ready.staleError = toFailure(read.error, attachment);
  return ready;
}

/** How a cached read is prepared to share its conversion (made each time: a memo showed no win, docs/reuse.md). */
function sharedPreparation(
  content: CachedContent,
  cache: DerivedCache,
  converters: ConverterRegistry | undefined,
) {
  return { converters, derived: { cache, sha256: content.sha256 } };
}

// The fate of each prepared conversion served again from the cache (see convertRead); held as
// long as the prepared object is, which the derived cache bounds.
const keptHits = new WeakMap<Prepared, Extract<FetchedAttachment, { kind: 'ready' }>>();

/**
 * What a fetch that threw becomes in the trace: an error, a timeout, or an abort. `served` is how
 * the content came, when it came before the failure (a hit the binding then refused is a hit).
 */
function failedFetch(
  error: unknown,
  attachment: FetchTarget,
  context: FetchContext,
  started: number,
  served?: CacheStatus,
): Extract<FetchedAttachment, { kind: 'failed' }> {
  const failure = context.until.signal.aborted
    ? new ContextError(
        'ABORTED',
        `reading ${attachment.uri} was aborted`,
        { server: attachment.server },
        error,
      )
    : toFailure(error, attachment);
  const cache = served ?? (bypassesCache(attachment, context) ? 'bypass' : 'miss');
  const durationMs = performance.now() - started;
  if (failure.code === 'ABORTED' && context.until.deadline.aborted) {
    const deadline = deadlineError(attachment, failure);
    return { kind: 'failed', status: 'timeout', error: deadline, cache, durationMs };
  }
  const status =
    failure.code === 'READ_TIMEOUT' || failure.code === 'TURN_DEADLINE'
      ? 'timeout'
      : failure.code === 'POLICY_DENIED'
        ? 'denied'
        : failure.code === 'INPUT_REQUIRED'
          ? 'input-required'
          : 'error';
  return { kind: 'failed', status, error: failure, cache, durationMs };
}

/**
 * The attachment's fresh copy in the cache, if there is one (see readContent). Not before the
 * server's identity is known: until then the read path resolves it (once per server).
 */
function peekContent(attachment: FetchTarget, context: FetchContext): CacheRead | undefined {
  const { server } = attachment;
  if (bypassesCache(attachment, context) || !context.servers.has(server)) return undefined;
  const identity = context.servers.identityOf(server);
  if (typeof identity !== 'string') {
    // The read path awaits it again and reports its failure; here it is only not yet known.
    identity.catch(() => undefined);
    return undefined;
  }
  const { uri } = attachment;
  const principal = partitionOf(server, context);
  return context.cache?.peek({ server, identity, uri, principal, privateTo: context.principal });
}

/** Whether this attachment is read past the cache: there is none, or the turn or pin says so. */
function bypassesCache(attachment: FetchTarget, context: FetchContext): boolean {
  return !context.cache || context.bypassCache || attachment.bypassCache === true;
}

/**
 * The attachment's content: from the cache (shared with concurrent turns, single-flight), or
 * straight from its server's session without one.
 */
async function readContent(attachment: FetchTarget, context: FetchContext): Promise<CacheRead> {
  const { server, uri } = attachment;
  const cache = context.cache;
  if (!cache) return readUncached(attachment, context);
  const known = context.servers.identityOf(server);
  const identity = typeof known === 'string' ? known : await raceAbort(known, context.until.signal);
  return cache.read(
    {
      server,
      identity,
      uri,
      principal: partitionOf(server, context),
      privateTo: context.principal,
      bypass: bypassesCache(attachment, context),
      signal: context.until.signal,
      probation: onProbation(attachment),
    },
    () => readFromServer(attachment, context),
  );
}

/**
 * A message attachment is likely read once: the cache keeps it on probation, where it cannot push
 * out pins, until a later turn reads it again. One that is also pinned is read as the pin is.
 */
function onProbation(attachment: FetchTarget): boolean {
  return attachment.scope === 'message' && !attachment.superseded?.length;
}

/**
 * Invariant 9: a per-user server's content is keyed by its principal, so no other principal's
 * turn can be served it (cache hit, single-flight join or stale copy alike). A shared server's
 * result marked `private` is kept by the turn's principal as well (ReadRequest.privateTo).
 */
function partitionOf(server: string, context: FetchContext): string | undefined {
  return context.servers.isPerUser(server) ? context.principal : undefined;
}

async function readUncached(attachment: FetchTarget, context: FetchContext): Promise<CacheRead> {
  const read = await raceAbort(readFromServer(attachment, context), context.until.signal);
  const { result, sha256, bytes } = measureContents(read);
  return { content: { result, sha256, bytes, fetchedAt: Date.now() }, cache: 'bypass' };
}

// The read is shared with concurrent turns (single-flight), so it carries only its own
// timeout; this turn's deadline and abort apply to its wait alone.
function readFromServer({ server, uri }: FetchTarget, context: FetchContext) {
  const principal = context.principal;
  return context.servers.readResource(server, uri, {
    timeoutMs: context.readTimeoutMs,
    // The audit names the pipeline whose turn started the (possibly shared) read.
    actor: context.actor,
    ...(principal !== undefined && { principal }),
  });
}

function deadlineError(attachment: FetchTarget, cause: unknown): ContextError {
  return new ContextError(
    'TURN_DEADLINE',
    `reading ${attachment.uri} did not finish before the turn deadline`,
    { server: attachment.server },
    cause,
  );
}

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
