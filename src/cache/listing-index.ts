import type { Resource } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerRegistry } from '../mcp/mcp-server-registry.js';
import { raceAbort } from '../mcp/race-abort.js';

interface Listing {
  readonly byUri: Promise<ReadonlyMap<string, Resource>>;
  readonly at: number;
  /** Set once the listing has arrived: a warm turn reads it without waiting on a promise. */
  settled?: ReadonlyMap<string, Resource>;
}

/**
 * Each server's resource listing, by URI, for what only listings carry: `annotations`
 * (priority, lastModified — MCP spec 2025-06-18, "Annotations"; read results have none).
 * Listed at most once per `ttlMs` per server, dropped on `list_changed` and when the session
 * closes. A server that cannot list (no resources capability, an error) has no annotations:
 * that never fails a turn.
 */
export class ListingIndex {
  readonly #servers: McpServerRegistry;
  readonly #ttlMs: number;
  readonly #listings = new Map<string, Listing>();
  readonly #detach: () => void;

  readonly #timeoutMs: number;

  /** `timeoutMs` bounds one listing (shared by every turn that waits for it). */
  constructor(servers: McpServerRegistry, ttlMs: number, timeoutMs = 10_000) {
    this.#servers = servers;
    this.#ttlMs = ttlMs;
    this.#timeoutMs = timeoutMs;
    const forget = (event: { server: string }) => this.#listings.delete(event.server);
    servers.on('resources-list-changed', forget);
    servers.on('session-closed', forget);
    this.#detach = () => {
      servers.off('resources-list-changed', forget);
      servers.off('session-closed', forget);
    };
  }

  /**
   * The listed `annotations.priority` (0–1) of a resource, if its server gives one. `signal`
   * ends this caller's wait (its turn's deadline), not the shared listing.
   */
  async priorityOf(
    server: string,
    uri: string,
    actor: { pipelineId: string; agentId?: string },
    signal?: AbortSignal,
  ): Promise<number | undefined> {
    const current = this.#listings.get(server);
    const listing =
      current?.settled && Date.now() - current.at < this.#ttlMs
        ? current.settled
        : await raceAbort(this.#listing(server, actor), signal).catch(() => undefined);
    const priority = listing?.get(uri)?.annotations?.priority;
    return typeof priority === 'number' ? priority : undefined;
  }

  /**
   * The listing's entry for a resource (annotations, size, title), if its server lists it; what
   * the provider consults before reading. `signal` ends this caller's wait, not the listing.
   */
  async listedOf(
    server: string,
    uri: string,
    actor: { pipelineId: string; agentId?: string },
    signal?: AbortSignal,
  ): Promise<Resource | undefined> {
    const listing = await raceAbort(this.#listing(server, actor), signal).catch(() => undefined);
    return listing?.get(uri);
  }

  dispose(): void {
    this.#detach();
    this.#listings.clear();
  }

  // --- Internal helpers ---

  #listing(
    server: string,
    actor: { pipelineId: string; agentId?: string },
  ): Promise<ReadonlyMap<string, Resource>> {
    const current = this.#listings.get(server);
    if (current && Date.now() - current.at < this.#ttlMs) return current.byUri;
    const byUri = this.#servers.listResources(server, { all: true, actor, timeoutMs: this.#timeoutMs }).then(
      ({ resources }) => new Map(resources.map((resource) => [resource.uri, resource])),
      () => new Map<string, Resource>(),
    );
    const listing: Listing = { byUri, at: Date.now() };
    this.#listings.set(server, listing);
    void byUri.then((settled) => {
      listing.settled = settled;
    });
    return byUri;
  }
}
