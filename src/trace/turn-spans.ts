import type { ScopeKind, TraceEntry, Turn } from '../types.js';
import { inSpan, type Telemetry, type TelemetrySpan } from './telemetry.js';

/**
 * The spans of one turn below its `mcp-context turn` span: a span per step (resolve, budget,
 * render) and one per attachment, open from its authorization to the end of the turn, with its
 * authorize/fetch/convert steps inside and its fate (status, tokens, cache, change) set at the end.
 * Without recording telemetry every method is a direct call.
 */
export class TurnSpans {
  readonly #telemetry: Telemetry | undefined;
  /** Each attachment's span, by its target (a turn has one attachment per server and URI). */
  readonly #attachments = new Map<string, TelemetrySpan | undefined>();

  /** The spans of a turn nobody records: every method a direct call, nothing kept (shared). */
  static readonly unrecorded = new TurnSpans(undefined);

  constructor(telemetry: Telemetry | undefined) {
    this.#telemetry = telemetry;
  }

  /** The telemetry steps further down (fetch, convert, MCP requests) report to. */
  get telemetry(): Telemetry | undefined {
    return this.#telemetry;
  }

  step<T>(name: string, run: () => Promise<T>): Promise<T> {
    return this.#telemetry ? inSpan(this.#telemetry, `mcp-context ${name}`, undefined, run) : run();
  }

  /** Opens one span per attachment, in the turn's order. */
  openAttachments(attachments: readonly { server: string; uri: string; scope: ScopeKind }[]): void {
    const telemetry = this.#telemetry;
    if (!telemetry) return;
    for (const attachment of attachments) {
      const span = telemetry.startSpan('mcp-context attachment', {
        'mcp_context.server': attachment.server,
        'mcp.resource.uri': attachment.uri,
        'mcp_context.scope': attachment.scope,
      });
      this.#attachments.set(targetKey(attachment), span);
    }
  }

  /**
   * Runs `run(input)` inside `attachment`'s span, in a child span `name` when one is given.
   * The step takes its attachment as an argument, so a turn passes one function for all of them:
   * without a span (no recording telemetry) nothing is made per attachment.
   */
  inAttachment<Input, T>(
    attachment: Target,
    name: string | undefined,
    run: (input: Input) => T,
    input: Input,
  ): T {
    const telemetry = this.#telemetry;
    if (!telemetry) return run(input);
    const parent = this.#attachments.get(targetKey(attachment));
    if (!parent) return run(input);
    return telemetry.withSpan(parent, () => {
      const span = name === undefined ? undefined : telemetry.startSpan(`mcp-context ${name}`);
      if (!span) return run(input);
      try {
        return run(input);
      } finally {
        span.end();
      }
    });
  }

  /** Sets each attachment's fate from its trace entry and ends its span. */
  closeAttachments(entries: readonly TraceEntry[]): void {
    if (!this.#telemetry) return;
    for (const entry of entries) {
      const span = this.#attachments.get(targetKey(entry));
      if (!span) continue;
      span.setAttributes(entryAttributes(entry));
      if (entry.error) span.recordError(entry.error);
      span.end();
    }
    this.#attachments.clear();
  }
}

interface Target {
  readonly server: string;
  readonly uri: string;
}

function targetKey({ server, uri }: Target): string {
  return JSON.stringify([server, uri]);
}

/** The turn span's own attributes (GenAI semantic conventions where one fits: `gen_ai.conversation.id`). */
export function turnAttributes(turn: Turn) {
  return {
    'mcp_context.pipeline.id': turn.pipelineId,
    'gen_ai.conversation.id': turn.conversationId,
    'mcp_context.agent.id': turn.agentId,
    'mcp_context.turn.id': turn.turnId,
  };
}

function entryAttributes(entry: TraceEntry) {
  return {
    'mcp_context.status': entry.status,
    'mcp_context.tokens': entry.tokens,
    'mcp_context.original_tokens': entry.originalTokens,
    'mcp_context.cache': entry.cache,
    'mcp_context.change': entry.change,
    'mcp_context.bytes': entry.bytes,
    'mcp_context.mime_type': entry.mimeType,
    'mcp_context.reason': entry.reason,
  };
}
