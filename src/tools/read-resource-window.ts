import type { Tokenizer } from '../budget/tokenizer.js';
import { truncationMarker } from '../budget/truncation-marker.js';
import type { ConverterRegistry } from '../convert/converter-registry.js';
import { prepareAttachment } from '../convert/prepare-attachment.js';
import { ContextError } from '../errors.js';
import type { CallOptions } from '../mcp/operation-schemas.js';
import type { ServerOperations } from '../mcp/server-operations.js';
import { assembleBody } from '../render/assemble-body.js';
import { frameResource } from '../render/frame-resource.js';
import type { ModelCapabilities } from '../types.js';

export interface ResourceWindowRequest {
  readonly server: string;
  readonly uri: string;
  /** First token to show: a truncation marker's `offset`. */
  readonly offset: number;
  /** Most tokens the whole answer (frame and marker included) may take. */
  readonly maxTokens: number;
}

export interface ResourceWindow {
  readonly server: string;
  readonly uri: string;
  readonly mimeType: string;
  readonly offset: number;
  /** One past the last token shown. */
  readonly endOffset: number;
  readonly totalTokens: number;
  /** The content shown, exactly as the provider would have framed it (escaped). */
  readonly content: string;
  /** Set when more follows: the offset to read on from. */
  readonly nextOffset?: number;
  /** The framed answer with a marker when more follows; within `maxTokens`. */
  readonly text: string;
  readonly tokens: number;
}

export interface ResourceWindowContext {
  readonly servers: ServerOperations;
  readonly tokenizer: Tokenizer;
  readonly model?: ModelCapabilities;
  readonly converters?: ConverterRegistry;
  readonly callOptions?: CallOptions;
}

/**
 * Reads a resource through the pipeline's binding and returns the tokens from `offset` on, as
 * many as fit. Offsets count tokens of the provider's own body — the same conversion
 * (prepareAttachment), escaping and assembly — so a truncation marker's offset continues exactly
 * where its cut ended.
 */
export async function readResourceWindow(
  request: ResourceWindowRequest,
  context: ResourceWindowContext,
): Promise<ResourceWindow> {
  const { server, uri, offset, maxTokens } = request;
  const { tokenizer } = context;
  const result = await context.servers.readResource(server, uri, context.callOptions);
  const { composable, converted } = prepareAttachment(
    { scope: 'message', server, uri },
    result,
    context.converters ? { converters: context.converters } : {},
  );
  const body = assembleBody(composable.sections, context.model).body;
  const tokens = await tokenizer.encode(body);
  const totalTokens = tokens.length;
  if (offset > totalTokens) {
    throw new ContextError(
      'INVALID_TOOL_ARGUMENT',
      `offset ${offset} is past the end of ${uri} (${totalTokens} tokens)`,
      { field: 'offset', value: offset, server },
    );
  }
  const provenance = {
    scope: 'message' as const,
    server,
    uri,
    mimeType: converted.mimeType,
    sha256: converted.sha256,
    originalTokens: totalTokens,
  };
  const frameTokens = await tokenizer.count(frameResource({ ...provenance, truncated: true }, ''));
  const markerFor = (end: number) =>
    end >= totalTokens
      ? ''
      : truncationMarker({
          server,
          uri,
          originalTokens: totalTokens,
          range: { startToken: end, endToken: totalTokens },
        });
  const reserve = frameTokens + (await tokenizer.count(markerFor(offset)));
  let room = maxTokens - reserve;
  if (room <= 0) {
    throw new ContextError(
      'LIMIT_EXCEEDED',
      `maxTokens ${maxTokens} leaves no room for content: the frame and marker alone take ${reserve}`,
      { field: 'maxTokens', value: maxTokens, server },
    );
  }
  const start = charactersOf(tokenizer, tokens, offset);
  // A slice re-encoded can take a token or two more than it did inside the whole: shrink until it fits.
  for (;;) {
    const end = Math.min(totalTokens, offset + room);
    const content = body.slice(
      start,
      end >= totalTokens ? body.length : charactersOf(tokenizer, tokens, end),
    );
    const truncated = end < totalTokens || offset > 0;
    const text = frameResource({ ...provenance, truncated }, content + markerFor(end));
    const used = await tokenizer.count(text);
    if (used <= maxTokens) {
      return {
        server,
        uri,
        mimeType: converted.mimeType,
        offset,
        endOffset: end,
        totalTokens,
        content,
        ...(end < totalTokens && { nextOffset: end }),
        text,
        tokens: used,
      };
    }
    room -= used - maxTokens;
    if (room <= 0) {
      throw new ContextError('LIMIT_EXCEEDED', `maxTokens ${maxTokens} is too small to show any of ${uri}`, {
        field: 'maxTokens',
        value: maxTokens,
        server,
      });
    }
  }
}

// --- Internal helpers ---

/** Characters covered by the first `count` tokens (a character split across the cut is not counted). */
function charactersOf(tokenizer: Tokenizer, tokens: Uint32Array, count: number): number {
  return count === 0 ? 0 : tokenizer.decode(tokens.subarray(0, count)).length;
}
