import { httpStatusOf } from './classify-transport-error.js';
import { HttpReplyError } from './http-reply-error.js';
import { RpcError } from './rpc-error.js';

/** A failure the SDK or the transport threw, as a code and one short line. */
export interface FailureSummary {
  readonly code: 'INVALID_RESULT' | 'UNSUPPORTED_CONTENT' | 'HTTP_ERROR' | 'SESSION_CLOSED' | 'MCP_ERROR';
  /** One line, at most ~200 characters: what the server did wrong. */
  readonly reason: string;
  readonly httpStatus?: number;
}

/** Longest piece of server-controlled text (an error message, a body excerpt) a reason quotes. */
const maxQuoted = 160;

/**
 * What went wrong, said once and short. Everything here is server-controlled text (error
 * messages, HTTP bodies, schema failures of results), so it is cut to one line and a few words:
 * a multi-line zod dump or a 5 MB HTML page never becomes an error message.
 *
 * - The SDK validates every result against the MCP schema and rejects with a ZodError: that is
 *   INVALID_RESULT naming the first issue's path, or UNSUPPORTED_CONTENT when the issue is a
 *   blob that is not base64 (the same code the converters give a blob they cannot decode).
 * - A non-2xx HTTP reply, or a 2xx reply that is not JSON-RPC (an HTML page): HTTP_ERROR with
 *   the status.
 * - A body that is not JSON: INVALID_RESULT.
 * - Anything else (closed transport, network failure): SESSION_CLOSED.
 */
export function summarizeFailure(error: unknown, operation?: string): FailureSummary {
  if (error instanceof RpcError) return { code: 'MCP_ERROR', reason: oneLine(error.message, maxQuoted) };
  if (error instanceof HttpReplyError) {
    return {
      code: 'HTTP_ERROR',
      reason: `HTTP ${error.status} with ${error.contentType || 'no content type'} instead of JSON-RPC`,
      httpStatus: error.status,
    };
  }
  const issues = zodIssuesOf(error) ?? sdkResultIssuesOf(error);
  if (issues !== undefined) return summarizeIssues(issues, operation);
  const status = httpStatusOf(error);
  const message = error instanceof Error ? error.message : String(error);
  if (status !== undefined) {
    const body = message.replace(/^(?:(?:Streamable HTTP|SSE) error: )?(?:Error POSTing to endpoint: )?/, '');
    const excerpt = oneLine(withoutMarkup(body), 80);
    return {
      code: 'HTTP_ERROR',
      reason: `HTTP ${status}${excerpt ? `: ${excerpt}` : ''}`,
      httpStatus: status,
    };
  }
  // The v2 transport says it bare (an SdkError); the v1 transport after "Streamable HTTP error: ".
  const unexpectedType = /^(?:Streamable HTTP error: )?Unexpected content type: (.*)$/s.exec(message);
  if (unexpectedType) {
    return {
      code: 'HTTP_ERROR',
      reason: `answered with ${oneLine(unexpectedType[1] ?? '', 60) || 'no content type'} instead of JSON-RPC`,
    };
  }
  if (error instanceof SyntaxError) {
    return { code: 'INVALID_RESULT', reason: `the reply is not JSON (${oneLine(message, 80)})` };
  }
  // undici: TypeError('fetch failed') whose cause says why (ECONNREFUSED, a reset socket).
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  const causeCode = typeof cause?.code === 'string' ? ` (${oneLine(cause.code, 40)})` : '';
  return { code: 'SESSION_CLOSED', reason: `${oneLine(message, maxQuoted)}${causeCode}` };
}

/** `text` on one line, control characters and runs of space collapsed, at most `max` characters. */
export function oneLine(text: string, max: number): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: controls are what is removed
  const flat = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\s]+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

// --- Internal helpers ---

interface Issue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

/** A ZodError (zod 3 or 4, whichever copy the SDK loaded): an `issues` array of path + message. */
function zodIssuesOf(error: unknown): readonly Issue[] | undefined {
  // zod 4's core error is named "$ZodError", the classic one "ZodError".
  if (!(error instanceof Error) || !/^\$?ZodError$/.test(error.name)) return undefined;
  const issues = (error as { issues?: unknown }).issues;
  if (!Array.isArray(issues)) return undefined;
  return issues.filter(
    (issue): issue is Issue =>
      typeof issue === 'object' &&
      issue !== null &&
      Array.isArray(issue.path) &&
      typeof issue.message === 'string',
  );
}

/**
 * The v2 client's INVALID_RESULT (`SdkError`, a string code): its message is
 * `Invalid result for <method>: ` and the ZodError's issues as JSON. The issues are read back out
 * (bounded: the message is the SDK's, but the paths are the server's); a message without them is
 * one issue of its own, whose text is the rest of the message.
 */
function sdkResultIssuesOf(error: unknown): readonly Issue[] | undefined {
  if (!(error instanceof Error) || (error as { code?: unknown }).code !== 'INVALID_RESULT') return undefined;
  const prefix = /^Invalid result for [^:]{1,80}: /.exec(error.message);
  const rest = prefix === null ? error.message : error.message.slice(prefix[0].length);
  if (rest.startsWith('[') && rest.length <= 1_000_000) {
    try {
      const parsed: unknown = JSON.parse(rest);
      if (Array.isArray(parsed)) {
        const issues = zodIssuesOf(Object.assign(new Error(), { name: 'ZodError', issues: parsed }));
        if (issues !== undefined && issues.length > 0) return issues;
      }
    } catch {
      // Not the issues list: the message says what was wrong.
    }
  }
  return [{ path: [], message: rest }];
}

function summarizeIssues(issues: readonly Issue[], operation: string | undefined): FailureSummary {
  const [first] = issues;
  if (first === undefined) return { code: 'INVALID_RESULT', reason: 'invalid result' };
  const path = pathOf(first.path);
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
  // The SDK's BlobResourceContents schema refuses a blob `atob` cannot decode.
  if (operation === 'resources/read' && first.path.at(-1) === 'blob' && /base64/i.test(first.message)) {
    return { code: 'UNSUPPORTED_CONTENT', reason: `${path} is not valid base64${more}` };
  }
  const message = oneLine(first.message.replace(/^Invalid input: /, ''), 100);
  return { code: 'INVALID_RESULT', reason: `invalid result: ${path || '(result)'}: ${message}${more}` };
}

/** `contents[0].blob` */
function pathOf(path: readonly PropertyKey[]): string {
  let text = '';
  for (const key of path.slice(0, 8)) {
    text += typeof key === 'number' ? `[${key}]` : `${text ? '.' : ''}${oneLine(String(key), 40)}`;
  }
  return text;
}

/** An HTML error page as its words: tags and entities are noise in a one-line reason. */
function withoutMarkup(text: string): string {
  return text
    .slice(0, 4096)
    .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&[a-z#0-9]+;/gi, ' ');
}
