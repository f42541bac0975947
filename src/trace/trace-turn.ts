import type { InjectionTrace } from '../types.js';
import type { AttachmentFate, ComposedFacts, TracedAttachment } from './attachment-fate.js';
import type { ChangeTracker } from './change-tracker.js';
import { historyKeyOf } from './history-key.js';
import { toTraceEntry } from './to-trace-entry.js';
import { type TracedSession, traceServersOf } from './trace-servers.js';

/** One attachment of the turn, with its fate and what the budget made of it (none where it never reached the budget). */
export interface TracedItem {
  readonly attachment: TracedAttachment;
  readonly fate: AttachmentFate;
  readonly composed: ComposedFacts | undefined;
}

/** The turn's own facts as the trace reports them, with its attachments still to be traced. */
export type TurnFacts = Omit<InjectionTrace, 'entries' | 'servers'> & {
  /** Every attachment of the turn, in resolve order. */
  readonly items: readonly TracedItem[];
  /** The MCP revision a server's session speaks, for the trace's servers section (see traceServersOf). */
  readonly sessionOf: (server: string) => TracedSession | undefined;
};

/**
 * Step 7, trace: one InjectionTrace for the turn, every attachment with its fate. What was
 * injected is compared (by sha256) with the last turn of the same history — the conversation,
 * or the pipeline for turns without one — to say what changed. The servers the entries name
 * are listed with the revision each one's session speaks.
 */
export function traceTurn(facts: TurnFacts, changes: ChangeTracker): InjectionTrace {
  const history = historyKeyOf(facts);
  const entries = Object.freeze(
    facts.items.map(({ attachment, fate, composed }) => {
      const injected =
        fate.kind === 'ready' && composed !== undefined && composed.decision.fate !== 'omitted';
      const change = injected
        ? changes.observe(history, attachment.server, attachment.uri, fate.converted.sha256)
        : undefined;
      return toTraceEntry(attachment, fate, composed, change);
    }),
  );
  const servers = traceServersOf(entries, facts.sessionOf);
  return {
    turnId: facts.turnId,
    pipelineId: facts.pipelineId,
    ...(facts.conversationId !== undefined && { conversationId: facts.conversationId }),
    startedAt: facts.startedAt,
    durationMs: facts.durationMs,
    budget: facts.budget,
    entries,
    ...(facts.instructions && facts.instructions.length > 0 && { instructions: facts.instructions }),
    ...(servers && { servers }),
  };
}
