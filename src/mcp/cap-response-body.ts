import { ContextError } from '../errors.js';

/** A private JSON-RPC error code: the client stopped reading a response that passed the cap. */
export const responseTooLargeCode = -32_090;

export interface ResponseCap {
  /** Most bytes of one JSON response, or of one event of an event stream. */
  readonly maxBytes: number;
  /** Named in the error. */
  readonly server: string;
  /**
   * Told when an event stream that answers no request of this POST (a GET stream) passes the
   * cap: its reader learns only that the stream failed, and the requests waiting on it do not.
   */
  readonly onStreamTooLarge?: (error: ContextError) => void;
}

/**
 * The response with its body read through a byte counter: past `maxBytes` reading stops and the
 * connection is released, so a hostile or broken server cannot make the client hold (or parse)
 * more than the cap, whatever it sends. A JSON body fails with LIMIT_EXCEEDED. An event stream
 * (`text/event-stream`) is counted per event, since one stream carries many messages; an event
 * past the cap ends the stream, and the requests it was answering (`requestIds`, read from the
 * POST body) get a JSON-RPC error with `responseTooLargeCode` instead of waiting for a timeout.
 */
export function capResponseBody(
  response: Response,
  cap: ResponseCap,
  requestIds: readonly unknown[],
): Response {
  if (response.body === null) return response;
  const eventStream = mediaTypeEssence(response.headers.get('content-type')) === 'text/event-stream';
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  const reader = response.body.getReader();
  // Bytes since the start of the body, or of the current event.
  let counted = 0;
  let previousByte = 0;
  const tooLarge = () =>
    new ContextError(
      'LIMIT_EXCEEDED',
      `server "${cap.server}" sent ${eventStream ? 'an event' : 'a response'} over ${cap.maxBytes} bytes (maxResponseBytes): reading stopped`,
      { server: cap.server, field: 'maxResponseBytes', value: cap.maxBytes },
    );
  const stop = (controller: ReadableStreamDefaultController<Uint8Array>) => {
    const error = tooLarge();
    void reader.cancel(error).catch(() => undefined);
    if (eventStream && requestIds.length > 0) {
      controller.enqueue(errorEvents(requestIds, error.message, cap.maxBytes));
      controller.close();
    } else {
      if (eventStream) cap.onStreamTooLarge?.(error);
      controller.error(error);
    }
  };
  const capped = new ReadableStream<Uint8Array>({
    start(controller) {
      if (!eventStream && declared > cap.maxBytes) stop(controller);
    },
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) {
        controller.close();
        return;
      }
      if (eventStream) {
        const boundary = lastEventBoundary(value, previousByte);
        counted = boundary < 0 ? counted + value.byteLength : value.byteLength - boundary;
        previousByte = value[value.byteLength - 1] ?? previousByte;
      } else {
        counted += value.byteLength;
      }
      if (counted > cap.maxBytes) {
        stop(controller);
        return;
      }
      controller.enqueue(value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
  return new Response(capped, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

/** The ids of the JSON-RPC requests in a POST body (the SDK sends a JSON string), if any. */
export function requestIdsOf(body: unknown): unknown[] {
  if (typeof body !== 'string') return [];
  try {
    const parsed: unknown = JSON.parse(body);
    return (Array.isArray(parsed) ? parsed : [parsed]).flatMap((message) =>
      typeof message === 'object' && message !== null && 'method' in message && 'id' in message
        ? [(message as { id: unknown }).id]
        : [],
    );
  } catch {
    return [];
  }
}

// --- Internal helpers ---

const encoder = new TextEncoder();

/** One SSE `message` event per request: a JSON-RPC error saying the answer was too large. */
function errorEvents(requestIds: readonly unknown[], message: string, maxBytes: number): Uint8Array {
  const events = requestIds.map((id) => {
    const error = { jsonrpc: '2.0', id, error: { code: responseTooLargeCode, message, data: { maxBytes } } };
    return `\n\nevent: message\ndata: ${JSON.stringify(error)}\n\n`;
  });
  return encoder.encode(events.join(''));
}

/**
 * The offset just past the last blank line (`\n\n`, `\r\n\r\n` counted by its last `\n\n`-like
 * pair) in `chunk`, or -1; `previousByte` is the byte before the chunk.
 */
function lastEventBoundary(chunk: Uint8Array, previousByte: number): number {
  for (let index = chunk.byteLength - 1; index >= 0; index--) {
    if (chunk[index] !== 0x0a) continue;
    const before = index > 0 ? chunk[index - 1] : previousByte;
    const beforeThat = index > 1 ? chunk[index - 2] : index === 1 ? previousByte : undefined;
    if (before === 0x0a || (before === 0x0d && beforeThat === 0x0a)) return index + 1;
  }
  return -1;
}

function mediaTypeEssence(contentType: string | null): string {
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}
