/**
 * Public data types. Everything a host passes in or gets back is plain data:
 * serialisable, no classes, no functions.
 */

/** Where a pin lives. A pipeline pin applies to every conversation of that pipeline. */
export type Scope = { readonly pipelineId: string } | { readonly conversationId: string };

/** The scope an attachment came from in a turn, narrowest first. */
export type ScopeKind = 'message' | 'conversation' | 'pipeline';

/** A concrete resource, or a template that a turn expands (RFC 6570) into one. */
export type AttachmentTarget =
  | { readonly server: string; readonly uri: string }
  | {
      readonly server: string;
      readonly template: string;
      readonly arguments: Readonly<Record<string, string | readonly string[]>>;
    };

export interface AttachmentOptions {
  /** Higher goes first within a scope when the budget is short. Default 0. */
  readonly priority?: number;
  /** The most tokens this attachment may take, its frame included. */
  readonly maxTokens?: number;
  /** Read it from the server every turn, never from the content cache. */
  readonly bypassCache?: boolean;
  /**
   * Inject it even when the server's listing marks it for the user only (`annotations.audience`
   * without `assistant`), which otherwise leaves it out (status `omitted`).
   */
  readonly ignoreAudience?: boolean;
  /**
   * Load it as a skill (skills extension `io.modelcontextprotocol/skills`): the URI names a
   * `SKILL.md`; its entry (skills/get) is checked against the host's caps and its content
   * verified against the entry's digest, size and frontmatter before it is injected.
   */
  readonly skill?: boolean;
}

/** What a host attaches to one message. */
export type MessageAttachment = AttachmentTarget & AttachmentOptions;

/** What `AttachmentStore.pin` takes. */
export type PinInput = AttachmentTarget & AttachmentOptions & { readonly scope: Scope };

/** A stored pin. */
export type Attachment = PinInput & {
  readonly id: string;
  /** ISO 8601 time the pin was added. */
  readonly addedAt: string;
  /**
   * The pin's version (an etag): a new one on every write of the pin (a re-pin updates it in place,
   * even with the same options), as every process that reads the store sees it. With `id` it names
   * one state of one pin: a pin removed and added again has a new id. The library's stores set it;
   * a pin without one (a host's own store may not) is never taken for unchanged: its turns are not
   * kept (see the provider's `keptTurns`).
   */
  readonly version?: string;
};

export interface ModelCapabilities {
  /**
   * The model's id (`gpt-4o`, `claude-opus-4-7`, `gemini-2.5-flash`, `meta-llama/Llama-3.1-8B`):
   * the turn is budgeted in its family's tokens, unless the provider was given one `tokenizer`.
   */
  readonly id?: string;
  /** Whether the model accepts image parts (png, jpeg, gif, webp). Default false. */
  readonly images?: boolean;
  /** Whether the model accepts audio parts. Default false. */
  readonly audio?: boolean;
  /** Whether the model accepts PDF document parts. Default false. */
  readonly pdf?: boolean;
}

// Validated by one schema, options/budget-options.ts (the provider's budget, a turn's override and
// the config file's budget all use it); a compile-time check there keeps this type and it equal.
export interface BudgetOptions {
  /** Tokens the whole rendered context may take: preamble, frames and markers included. */
  readonly maxTokens: number;
  /** Below this many content tokens an attachment is omitted rather than injected as a stub. */
  readonly minTokens?: number;
  /** `fair`: max-min water-filling across attachments; `priority`: greedy in rank order. */
  readonly strategy?: 'fair' | 'priority';
  /**
   * How a resource that does not fit is cut: `head` (default), `tail`, `head-tail` (middle
   * elided), or `relevant` (the chunks most relevant to `turn.message.text`, in document order).
   */
  readonly truncation?: TruncationStrategyName;
  /** Cut at a line end when one is close to the cut (default true). */
  readonly lineAware?: boolean;
  /**
   * Fraction of `maxTokens` held back for a model whose tokenizer differs from the one counting
   * (e.g. 0.1 for Claude against o200k_base). Default 0.
   */
  readonly safetyMargin?: number;
  /**
   * Tokens held for a scope's attachments, e.g. `{ message: 2000 }` so that what the user attached
   * to this message always gets room: each reserved scope is planned within its reservation
   * first (narrowest first), then the rest of the budget is shared as usual.
   */
  readonly reserve?: Partial<Record<ScopeKind, number>>;
}

export type TruncationStrategyName = 'head' | 'tail' | 'head-tail' | 'relevant';

/** One call of `provide()`: the turn about to go to the model. */
export interface Turn {
  readonly pipelineId: string;
  /** The agent acting, where the host binds agents too: access needs the pipeline's and the agent's binding. */
  readonly agentId?: string;
  readonly conversationId?: string;
  /**
   * The host's user the turn is for. Per-user servers read with this principal's session and
   * credentials, and their content is cached for this principal alone; shared servers ignore it
   * (beyond the audit). A per-user server's attachment without one fails as PRINCIPAL_REQUIRED.
   */
  readonly principal?: string;
  /** Defaults to a random UUID. */
  readonly turnId?: string;
  readonly message?: {
    readonly text?: string;
    readonly attachments?: readonly MessageAttachment[];
  };
  readonly model?: ModelCapabilities;
  /** Read every attachment of this turn from its server, not from the content cache. */
  readonly bypassCache?: boolean;
  /** Per-turn override of the provider's budget: models differ. */
  readonly budget?: Partial<BudgetOptions>;
  readonly signal?: AbortSignal;
}

/** Where a rendered resource came from. */
export interface BlockProvenance {
  readonly scope: ScopeKind;
  readonly server: string;
  readonly uri: string;
  readonly mimeType: string;
  readonly sha256: string;
  readonly truncated: boolean;
  /** Tokens of the converted content before any cut (an estimate when `originalTokensEstimated`). */
  readonly originalTokens?: number;
  readonly originalTokensEstimated?: boolean;
  /** The server's `annotations.lastModified` for it (ISO 8601), from its listing. */
  readonly lastModified?: string;
  /** Set when it was loaded as a skill: the skill's name and description, from its verified entry. */
  readonly skill?: { readonly name: string; readonly description: string };
}

/** Content passed to the model natively (not as text), framed by a placeholder line in its block. */
export interface MediaPart {
  readonly kind: 'image' | 'audio' | 'document';
  readonly uri: string;
  readonly mimeType: string;
  /** base64. */
  readonly data: string;
  readonly bytes: number;
}

/**
 * What the provider returns for the model, in a stable order. `text` is already framed;
 * concatenating every block's text gives the plain-text rendering whose token count the
 * budget bounds.
 */
export type ContextBlock =
  | { readonly kind: 'preamble'; readonly text: string }
  /** The `initialize` instructions of the servers this turn injects from, framed per server. */
  | { readonly kind: 'instructions'; readonly text: string }
  | {
      readonly kind: 'resource';
      readonly text: string;
      readonly provenance: BlockProvenance;
      /** Images, audio, PDFs the model takes natively; each is named by a line in `text`. */
      readonly parts?: readonly MediaPart[];
    };

export type TraceStatus =
  | 'injected'
  /** Left out before reading: for the user only (`annotations.audience`), or listed over the byte cap. */
  | 'omitted'
  | 'truncated'
  | 'omitted-budget'
  | 'denied'
  | 'error'
  | 'timeout'
  /** A 2026-07-28 server asked for input (`input_required`) the host did not give: its error says what. */
  | 'input-required'
  | 'stale'
  | 'unsupported';

export type CacheStatus = 'hit' | 'miss' | 'stale' | 'bypass';

/**
 * Several replicas: on a local miss, the fleet's copy served it (`hit`), this replica read it
 * for the fleet (`miss`), or it read alone because the shared tier was unreachable
 * (`unavailable`) or another replica's read did not land in time (`wait-timeout`).
 */
export type SharedCacheStatus = 'hit' | 'miss' | 'unavailable' | 'wait-timeout';

/** An attachment merged into another one for the same (server, uri) from a narrower scope. */
export interface SupersededAttachment {
  readonly scope: ScopeKind;
  readonly attachmentId?: string;
}

/** A content item of a read that could not be injected as text, and why. */
export interface OmittedContent {
  readonly uri: string;
  readonly mimeType: string;
  readonly bytes: number;
  readonly reason: string;
}

/**
 * One attachment's account in a turn's trace. Frozen: an attachment unchanged since the last turn
 * is traced with that turn's entry object again.
 */
export interface TraceEntry {
  readonly scope: ScopeKind;
  /** The pin's id; absent for message attachments. */
  readonly attachmentId?: string;
  readonly server: string;
  readonly uri: string;
  /** The template the uri was expanded from, if any. */
  readonly template?: string;
  readonly mimeType?: string;
  /** The server's `annotations.lastModified` (ISO 8601), where its listing gives one. */
  readonly lastModified?: string;
  /** The skill's name, when the attachment was loaded as a skill. */
  readonly skillName?: string;
  readonly status: TraceStatus;
  /** Tokens this attachment took in the rendered context, its frame included. */
  readonly tokens: number;
  /** Tokens of the converted content before any truncation. */
  readonly originalTokens: number;
  /** True when `originalTokens` is extrapolated: a large resource is counted only as far as the budget needs. */
  readonly originalTokensEstimated?: boolean;
  /** Facts about the conversion, e.g. "labelled application/json but not valid JSON; shown as sent". */
  readonly notes?: readonly string[];
  /** Bytes of content read from the server. */
  readonly bytes: number;
  readonly sha256?: string;
  readonly cache: CacheStatus;
  /** With a shared tier (several replicas), how the local miss went through it. */
  readonly sharedCache?: SharedCacheStatus;
  /**
   * How long its read and conversion took in this turn; 0 for a cache hit whose conversion an
   * earlier turn made (nothing was read or converted).
   */
  readonly durationMs: number;
  /** Why the attachment was omitted or cut, in words. */
  readonly reason?: string;
  readonly error?: { readonly code: string; readonly message: string };
  readonly superseded: readonly SupersededAttachment[];
  readonly omittedContents: readonly OmittedContent[];
  /**
   * Compared with the last turn of this conversation that injected it: `new`, `changed` or
   * `unchanged` (by sha256); `new` too once the conversation has injected 128 other resources of
   * its server since. Absent when nothing of it was injected.
   */
  readonly change?: 'new' | 'changed' | 'unchanged';
}

/** What a turn spent, in whose tokens, and how far that count can be trusted. */
export interface TraceBudget {
  readonly maxTokens: number;
  readonly usedTokens: number;
  /** The tokenizer that counted, e.g. `tiktoken:o200k_base`, `claude:claude-4.7@2026-12-04`, `hf:gemma3`. */
  readonly tokenizer: string;
  /** True when it counts as the model's own tokenizer does; false for an estimate (Claude, an unknown model). */
  readonly exact: boolean;
  /** Fraction of `maxTokens` held back (the budget's `safetyMargin`, or the estimate's margin if larger). */
  readonly margin: number;
}

/** One per turn: every attachment with its fate. */
export interface InjectionTrace {
  readonly turnId: string;
  readonly pipelineId: string;
  readonly conversationId?: string;
  /** ISO 8601. */
  readonly startedAt: string;
  readonly durationMs: number;
  readonly budget: TraceBudget;
  readonly entries: readonly TraceEntry[];
  /** Server instructions considered for this turn, per server, when the provider injects them. */
  readonly instructions?: readonly InstructionsEntry[];
  /**
   * The servers the entries name (by `server`), in the order they first appear, each with the
   * MCP revision its session speaks; a server no session has told it yet is left out. Absent
   * when none is known.
   */
  readonly servers?: readonly TraceServer[];
}

/** A server of a turn's trace and the MCP revision its current (or last) session negotiated. */
export interface TraceServer {
  readonly server: string;
  /** `2025-11-25` (or an older revision a 2025 server chose), `2026-07-28` for a server of the stateless revision. */
  readonly protocolVersion: string;
  /**
   * How its pinned content is kept fresh: `notifications` (subscribed; an update drops the cached
   * entry at once), `ttl` (re-read when the entry's time is up: the server offers no
   * `resources.subscribe`, or is a stateless 2025 Streamable HTTP server, which keeps no
   * subscription past a request). On 2026-07-28, through `subscriptions/listen`; a pinned URI the
   * acknowledgement leaves out is TTL-only though the server's is `notifications`
   * (`subscription-failed` names it).
   */
  readonly pinUpdates?: 'notifications' | 'ttl';
}

/** What became of one server's `initialize` instructions in a turn. */
export interface InstructionsEntry {
  readonly server: string;
  readonly tokens: number;
  readonly truncated: boolean;
  readonly status: 'included' | 'truncated' | 'omitted-budget' | 'none' | 'error';
  readonly error?: { readonly code: string; readonly message: string };
}

export interface ProvideResult {
  /**
   * Frozen, as the trace's `entries` are: a turn answered again unrun (a kept turn) answers the
   * very arrays of the turn it repeats.
   */
  readonly blocks: readonly ContextBlock[];
  readonly trace: InjectionTrace;
}
