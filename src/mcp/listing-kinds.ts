import type {
  Prompt,
  Resource,
  ResourceTemplateType as ResourceTemplate,
  Tool,
} from '@modelcontextprotocol/client';
import type { SessionRequest, Traced } from './call-on-session.js';
import { type Page, pageOf } from './collect-pages.js';
import type { McpSession } from './mcp-session.js';
import { parseSkillEntry } from './parse-skill-entry.js';
import { requireCapability } from './require-capability.js';
import { listSkillsResultSchema, type Skill, skillsExtensionId } from './skill-schemas.js';

/** What each listing lists, by the key its result holds the items under. */
export interface ListedItems {
  readonly resources: Resource;
  readonly resourceTemplates: ResourceTemplate;
  readonly prompts: Prompt;
  readonly tools: Tool;
  readonly skills: Skill;
}

export type ListingKind = keyof ListedItems;

/**
 * One listing's answer: `{ resources: [...], nextCursor? }`, `{ tools: [...] }` …, with the
 * cache hints of its result (a whole listing's: its narrowest page's) when the server gave any.
 */
export type Listing<Kind extends ListingKind> = { [Key in Kind]: ListedItems[Kind][] } & {
  nextCursor?: string;
  ttlMs?: number;
  cacheScope?: 'public' | 'private';
};

/** How one kind is listed: its MCP method, one page of it, and what a complete listing counts. */
export interface ListingSpec<Kind extends ListingKind> {
  readonly operation: string;
  fetchPage(
    server: string,
    client: McpSession,
    cursor: string | undefined,
    request: SessionRequest,
    traced: Traced,
  ): Promise<Page<unknown>>;
  /** The items of the whole answer, checked (the page's items are as the server sent them). */
  readonly check?: (server: string, items: unknown[]) => ListedItems[Kind][];
  /** The status field a complete listing sets. */
  readonly countField?: 'resourceCount' | 'promptCount';
}

/**
 * Every listing the registry offers, one entry a kind: the one listing path (paging, bounds,
 * counts, audit) reads this table instead of a method per kind.
 */
export const listingKinds: { readonly [Kind in ListingKind]: ListingSpec<Kind> } = {
  resources: {
    operation: 'resources/list',
    countField: 'resourceCount',
    fetchPage: (_server, client, cursor, request, traced) =>
      client
        .listResources(traced(cursorParams(cursor)), request)
        .then((result) => pageOf(result.resources, result)),
  },
  resourceTemplates: {
    operation: 'resources/templates/list',
    fetchPage: (_server, client, cursor, request, traced) =>
      client
        .listResourceTemplates(traced(cursorParams(cursor)), request)
        .then((result) => pageOf(result.resourceTemplates, result)),
  },
  prompts: {
    operation: 'prompts/list',
    countField: 'promptCount',
    fetchPage: (_server, client, cursor, request, traced) =>
      client
        .listPrompts(traced(cursorParams(cursor)), request)
        .then((result) => pageOf(result.prompts, result)),
  },
  tools: {
    operation: 'tools/list',
    fetchPage: (_server, client, cursor, request, traced) =>
      client.listTools(traced(cursorParams(cursor)), request).then((result) => pageOf(result.tools, result)),
  },
  /**
   * The skills extension `io.modelcontextprotocol/skills` (`skills/list`), each entry checked;
   * CAPABILITY_MISSING when the server does not declare it.
   */
  skills: {
    operation: 'skills/list',
    fetchPage: async (server, client, cursor, request) => {
      requireCapability(
        server,
        client.getServerCapabilities()?.extensions?.[skillsExtensionId],
        skillsExtensionId,
      );
      const result = await client.request(
        { method: 'skills/list', params: cursor ? { cursor } : {} },
        listSkillsResultSchema,
        request,
      );
      return pageOf(result.skills, result);
    },
    check: (server, items) =>
      items.map((entry, index) => parseSkillEntry(server, entry, `skills/list entry ${index}`)),
  },
};

// --- Internal helpers ---

function cursorParams(cursor: string | undefined): { cursor: string } | undefined {
  return cursor ? { cursor } : undefined;
}
