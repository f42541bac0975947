import type { Resource } from '@modelcontextprotocol/client';
import type { Tokenizer } from '../budget/tokenizer.js';
import { isUiResource } from '../convert/ui-resource.js';
import { ContextError } from '../errors.js';
import type { CallOptions } from '../mcp/operation-schemas.js';
import type { ServerOperations } from '../mcp/server-operations.js';
import { toSafeJson } from '../render/to-safe-json.js';
import type { ListResourcesArguments } from './exploration-tool-schemas.js';

interface ListedServer {
  server: string;
  resources: { uri: string; name: string; mimeType?: string; description?: string }[];
  nextCursor?: string;
  /** MCP Apps UI resources on this page, left out of the listing (they are never model context). */
  uiResourcesHidden?: number;
  error?: { code: string; message: string };
}

export interface ToolListing {
  readonly result: { servers: ListedServer[]; omittedResources?: number; note?: string };
  /** `result` as JSON, within the token cap. */
  readonly text: string;
}

export interface ListForToolContext {
  readonly servers: ServerOperations;
  readonly tokenizer: Tokenizer;
  readonly maxTokens: number;
  readonly callOptions: CallOptions;
  /** List MCP Apps UI resources too (default: they are left out, and counted). */
  readonly includeUiResources?: boolean;
}

/**
 * One page per server the pipeline may list (or the page `cursor` names on one server). A
 * failing server is reported in its entry, not fatal. When the answer exceeds the token cap the
 * last resources are left out — and counted, with a note on how to see them.
 */
export async function listResourcesForTool(
  args: ListResourcesArguments,
  context: ListForToolContext,
): Promise<ToolListing> {
  if (args.cursor !== undefined && args.server === undefined) {
    throw new ContextError(
      'INVALID_TOOL_ARGUMENT',
      'argument "cursor": a cursor belongs to one server: pass `server` too',
      {
        field: 'cursor',
      },
    );
  }
  const names = args.server !== undefined ? [args.server] : context.servers.serverNames;
  const listed = await Promise.all(
    names.map(async (server): Promise<ListedServer> => {
      try {
        const page = await context.servers.listResources(server, {
          ...context.callOptions,
          ...(args.cursor !== undefined && { cursor: args.cursor }),
        });
        const shown = context.includeUiResources
          ? page.resources
          : page.resources.filter((resource) => !isUiResource(resource.uri, resource.mimeType));
        const hidden = page.resources.length - shown.length;
        return {
          server,
          resources: shown.map(describe),
          ...(page.nextCursor !== undefined && { nextCursor: page.nextCursor }),
          ...(hidden > 0 && { uiResourcesHidden: hidden }),
        };
      } catch (error) {
        // An explicit request for one server fails as a whole; across servers, one failure is one entry.
        if (args.server !== undefined || !ContextError.isInstance(error)) throw error;
        return { server, resources: [], error: { code: error.code, message: error.message } };
      }
    }),
  );
  return fitListing(listed, context);
}

// --- Internal helpers ---

function describe(resource: Resource): ListedServer['resources'][number] {
  return {
    uri: resource.uri,
    name: resource.name,
    ...(resource.mimeType !== undefined && { mimeType: resource.mimeType }),
    ...(resource.description !== undefined && { description: resource.description }),
  };
}

async function fitListing(listed: ListedServer[], context: ListForToolContext): Promise<ToolListing> {
  const total = listed.reduce((sum, entry) => sum + entry.resources.length, 0);
  const render = (keep: number) => {
    let left = keep;
    const servers = listed.map((entry) => {
      const resources = entry.resources.slice(0, Math.max(0, left));
      left -= resources.length;
      return { ...entry, resources };
    });
    const omitted = total - keep;
    const result =
      omitted === 0
        ? { servers }
        : {
            servers,
            omittedResources: omitted,
            note: 'the listing was cut to fit the token cap: list one server at a time to see the rest',
          };
    return { result, text: toSafeJson(result) };
  };
  const whole = render(total);
  if ((await context.tokenizer.count(whole.text)) <= context.maxTokens) return whole;
  // The most resources that still fit, by bisection: a few counts, not one per resource.
  let low = 0;
  let high = total - 1;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if ((await context.tokenizer.count(render(middle).text)) <= context.maxTokens) low = middle;
    else high = middle - 1;
  }
  const fitted = render(low);
  if ((await context.tokenizer.count(fitted.text)) > context.maxTokens) {
    throw new ContextError(
      'LIMIT_EXCEEDED',
      `maxTokens ${context.maxTokens} cannot hold even an empty listing`,
      {
        field: 'maxTokens',
        value: context.maxTokens,
      },
    );
  }
  return fitted;
}
