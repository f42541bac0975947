import type { Resource } from '@modelcontextprotocol/client';
import { z } from 'zod';
import { mimeTypeAllowed } from '../convert/mime-type-pattern.js';
import { ContextError } from '../errors.js';
import { parseOptions } from '../options/parse-options.js';
import type { ListOptions } from './operation-schemas.js';
import { callOptionsSchema } from './operation-schemas.js';

/** What `aggregateResources` reads from: the registry, or a pipeline's bound view of it. */
export interface ResourceSource {
  readonly serverNames: readonly string[];
  listResources(server: string, options?: ListOptions): Promise<{ resources: Resource[] }>;
}

const aggregateOptionsSchema = callOptionsSchema.extend({
  /** Only these servers; default every server of the source. */
  servers: z.array(z.string().min(1)).optional(),
  /** Media type patterns (`text/*`, `application/json`, `+json`); default any. */
  mimeTypes: z.array(z.string().min(1)).optional(),
  sort: z.enum(['server', 'uri', 'name', 'mimeType', 'size', 'lastModified']).default('server'),
  order: z.enum(['asc', 'desc']).default('asc'),
  limit: z.number().int().positive().max(10_000).default(100),
  offset: z.number().int().nonnegative().default(0),
});

export type AggregateResourcesOptions = z.input<typeof aggregateOptionsSchema>;

export type AggregatedResource = Resource & { readonly server: string };

export interface AggregatedResources {
  /** The requested window of the filtered, sorted listing. */
  readonly resources: AggregatedResource[];
  /** Resources matching the filters across every server that answered. */
  readonly total: number;
  /** Servers that could not be listed: their failure, never an empty list in disguise. */
  readonly errors: readonly { readonly server: string; readonly code: string; readonly message: string }[];
}

/**
 * One listing across servers (every page of each, bounded by the registry's caps), filtered
 * by server and media type, sorted, and windowed by limit/offset. One failing server is
 * reported in `errors`; the others are still listed.
 */
export async function aggregateResources(
  source: ResourceSource,
  options: AggregateResourcesOptions = {},
): Promise<AggregatedResources> {
  const parsed = parseOptions(aggregateOptionsSchema, options, 'options');
  const requested = parsed.servers ?? source.serverNames;
  const listings = await Promise.all(
    requested.map(async (server) => {
      try {
        if (!source.serverNames.includes(server)) {
          throw new ContextError('UNKNOWN_SERVER', `no MCP server named "${server}" is available`, {
            server,
          });
        }
        const { resources } = await source.listResources(server, {
          all: true,
          ...(parsed.signal && { signal: parsed.signal }),
          ...(parsed.timeoutMs !== undefined && { timeoutMs: parsed.timeoutMs }),
        });
        return { server, resources };
      } catch (error) {
        if (parsed.signal?.aborted) throw error;
        const failure = ContextError.isInstance(error) ? error : undefined;
        return { server, error: { server, code: failure?.code ?? 'PROTOCOL_ERROR', message: String(error) } };
      }
    }),
  );
  const all: AggregatedResource[] = [];
  const errors: AggregatedResources['errors'][number][] = [];
  for (const listing of listings) {
    if ('error' in listing && listing.error) errors.push(listing.error);
    for (const resource of listing.resources ?? []) all.push({ ...resource, server: listing.server });
  }
  const { mimeTypes } = parsed;
  const filtered = mimeTypes ? all.filter((resource) => mimeTypeAllowed(resource.mimeType, mimeTypes)) : all;
  const direction = parsed.order === 'asc' ? 1 : -1;
  filtered.sort(
    (a, b) =>
      direction * compareBy(parsed.sort, a, b) ||
      compareText(a.server, b.server) ||
      compareText(a.uri, b.uri),
  );
  return {
    resources: filtered.slice(parsed.offset, parsed.offset + parsed.limit),
    total: filtered.length,
    errors,
  };
}

// --- Internal helpers ---

function compareBy(
  key: z.output<typeof aggregateOptionsSchema>['sort'],
  a: AggregatedResource,
  b: AggregatedResource,
): number {
  switch (key) {
    case 'server':
      return compareText(a.server, b.server);
    case 'size':
      // Unknown sizes sort last ascending.
      return (a.size ?? Number.POSITIVE_INFINITY) - (b.size ?? Number.POSITIVE_INFINITY) || 0;
    case 'lastModified':
      return compareText(a.annotations?.lastModified ?? '', b.annotations?.lastModified ?? '');
    default:
      return compareText(a[key] ?? '', b[key] ?? '');
  }
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
