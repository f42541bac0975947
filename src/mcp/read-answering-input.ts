import { askedInputOf, InputRequiredError, maxAsked } from './input-required-error.js';

/** Answers one embedded `elicitation/create` of an `input_required` result: its params, untrusted. */
export type InputAnswerer = (params: unknown, signal: AbortSignal | undefined) => Promise<unknown>;

/** A read's result, with how many `input_required` rounds it took when it took any. */
export type AnsweredRead<T> = T & {
  /** Rounds of input answered before the server sent content: such a result is never cached. */
  readonly inputRounds?: number;
};

/** Rounds of input one read may take (the v2 client's own default is 10; a user answers each). */
export const maxInputRounds = 3;

/**
 * Sends `resources/read` and, while the server answers `input_required` (MCP 2026-07-28,
 * basic/patterns/mrtr), puts its elicitations to `answer` one at a time and sends the read again
 * with the answers (`inputResponses`) and its `requestState` echoed exactly. Only elicitations
 * are answered: the library offers no sampling or roots. Anything it cannot answer, and a server
 * still asking after `maxInputRounds`, fails as InputRequiredError naming what was asked.
 */
export async function readAnsweringInput<T>(
  send: (params: Record<string, unknown>) => Promise<unknown>,
  params: Record<string, unknown>,
  answer: InputAnswerer | undefined,
  signal?: AbortSignal,
): Promise<AnsweredRead<T>> {
  let retry = params;
  for (let rounds = 0; ; rounds++) {
    const result = await send(retry);
    if (!isInputRequired(result)) {
      return (rounds === 0 ? result : { ...(result as object), inputRounds: rounds }) as AnsweredRead<T>;
    }
    const requests = isObject(result.inputRequests) ? Object.entries(result.inputRequests) : [];
    const asked = askedInputOf(result.inputRequests);
    if (rounds === maxInputRounds) throw new InputRequiredError(asked, 'rounds', rounds);
    if (requests.length > maxAsked) throw new InputRequiredError(asked, 'too-many', rounds);
    if (requests.some(([, request]) => methodOf(request) !== 'elicitation/create')) {
      throw new InputRequiredError(asked, 'unsupported', rounds);
    }
    if (requests.length > 0 && answer === undefined)
      throw new InputRequiredError(asked, 'no-handler', rounds);
    const inputResponses: Record<string, unknown> = {};
    // One question at a time: each one is a user's attention.
    for (const [key, request] of requests) {
      inputResponses[key] = await answer?.((request as { params?: unknown }).params, signal);
    }
    retry = {
      ...params,
      ...(requests.length > 0 && { inputResponses }),
      ...(typeof result.requestState === 'string' && { requestState: result.requestState }),
    };
  }
}

// --- Internal helpers ---

interface InputRequired {
  readonly resultType: 'input_required';
  readonly inputRequests?: unknown;
  readonly requestState?: unknown;
}

function isInputRequired(result: unknown): result is InputRequired {
  return (result as { resultType?: unknown } | undefined)?.resultType === 'input_required';
}

function methodOf(request: unknown): unknown {
  return (request as { method?: unknown } | null | undefined)?.method;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
