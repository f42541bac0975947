import { oneLine } from './summarize-failure.js';

/** Most input requests of one `input_required` answer that are named or put to the host. */
export const maxAsked = 10;

/** One thing a server asked for in an `input_required` answer, as far as a host needs to know. */
export interface AskedInput {
  /** The server's key for it in `inputRequests`. */
  readonly key: string;
  /** `elicitation/create`, `sampling/createMessage`, `roots/list`, or whatever the server named. */
  readonly method: string;
  /** An elicitation's question. */
  readonly message?: string;
  /** An elicitation's mode: a form, or a page the user should open. */
  readonly mode?: 'form' | 'url';
  /** A form's field names (`requestedSchema.properties`). */
  readonly fields?: readonly string[];
  /** A URL-mode elicitation's page. */
  readonly url?: string;
}

/**
 * Why a read that asked for input ended without content: no elicitation handler is registered,
 * the server asked for something other than an elicitation, it asked for more than `maxAsked`
 * things at once, or it was still asking after the last round.
 */
export type InputRequiredReason = 'no-handler' | 'unsupported' | 'too-many' | 'rounds';

/**
 * A `resources/read` answered `input_required` that could not be satisfied. Thrown by the
 * session, which does not know the server's name; `toContextError` turns it into
 * INPUT_REQUIRED naming the server, what it asked and why it was not given.
 */
export class InputRequiredError extends Error {
  override readonly name = 'InputRequiredError';

  constructor(
    readonly asked: readonly AskedInput[],
    readonly reason: InputRequiredReason,
    /** Rounds already answered before this one. */
    readonly rounds: number,
  ) {
    super(`input required (${reason})`);
  }
}

/**
 * What an untrusted `inputRequests` map asks for: at most `maxAsked` entries, every string cut
 * to one short line, at most 20 field names each.
 */
export function askedInputOf(inputRequests: unknown): AskedInput[] {
  if (typeof inputRequests !== 'object' || inputRequests === null) return [];
  const asked: AskedInput[] = [];
  for (const [key, request] of Object.entries(inputRequests).slice(0, maxAsked)) {
    const { method, params } = (request ?? {}) as { method?: unknown; params?: unknown };
    const { message, mode, requestedSchema, url } = (params ?? {}) as Record<string, unknown>;
    const properties = (requestedSchema as { properties?: unknown } | undefined)?.properties;
    const fields =
      typeof properties === 'object' && properties !== null
        ? Object.keys(properties)
            .slice(0, 20)
            .map((field) => oneLine(field, 60))
        : undefined;
    asked.push({
      key: oneLine(key, 60),
      method: typeof method === 'string' ? oneLine(method, 60) : 'unknown',
      ...(typeof message === 'string' && { message: oneLine(message, 200) }),
      ...((mode === 'form' || mode === 'url') && { mode }),
      ...(fields !== undefined && { fields }),
      ...(typeof url === 'string' && { url: oneLine(url, 200) }),
    });
  }
  return asked;
}
