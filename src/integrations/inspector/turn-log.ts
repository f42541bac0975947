import type { InjectionTrace } from '../../types.js';

/** One turn as the page sees it: the trace, and whether its rendered context can be shown. */
export interface LoggedTurn {
  readonly trace: InjectionTrace;
  readonly hasContext: boolean;
}

/** The last `max` turns, oldest first; the rendered context is kept only when content viewing is on. */
export class TurnLog {
  readonly #max: number;
  readonly #turns: { trace: InjectionTrace; context: string | undefined }[] = [];

  constructor(max: number) {
    this.#max = max;
  }

  add(trace: InjectionTrace, context: string | undefined): LoggedTurn {
    this.#turns.push({ trace, context });
    if (this.#turns.length > this.#max) this.#turns.shift();
    return { trace, hasContext: context !== undefined };
  }

  list(): LoggedTurn[] {
    return this.#turns.map(({ trace, context }) => ({ trace, hasContext: context !== undefined }));
  }

  /** The rendered context of a logged turn; undefined when the turn is gone or was not kept. */
  contextOf(turnId: string): string | undefined {
    return this.#turns.find((turn) => turn.trace.turnId === turnId)?.context;
  }

  /** Conversation and pipeline ids seen in logged turns, for stores that cannot list every pin. */
  scopes(): { pipelineIds: Set<string>; conversationIds: Set<string> } {
    const pipelineIds = new Set<string>();
    const conversationIds = new Set<string>();
    for (const { trace } of this.#turns) {
      pipelineIds.add(trace.pipelineId);
      if (trace.conversationId !== undefined) conversationIds.add(trace.conversationId);
    }
    return { pipelineIds, conversationIds };
  }
}
