import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type {
  GetPromptResult,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  ServerCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import { EventEmitter } from 'eventemitter3';
import { z } from 'zod';
import { ContextError } from '../errors.js';
import { parseOptions } from '../options/parse-options.js';
import { collectPages } from './collect-pages.js';
import { detectErrorBody } from './detect-error-body.js';
import { raceAbort } from './race-abort.js';
import { mcpServersSchema } from './server-config.js';
import { type ConnectionEvent, ServerConnection } from './server-connection.js';
import { toContextError } from './to-context-error.js';

const registryOptionsSchema = z.object({
  mcpServers: mcpServersSchema,
  /** Default per-request timeout, in milliseconds. */
  requestTimeoutMs: z.number().int().positive().default(30_000),
  /** Caps for `{ all: true }` listings. */
  maxPages: z.number().int().positive().default(100),
  maxItems: z.number().int().positive().default(10_000),
});

export type McpServerRegistryOptions = z.input<typeof registryOptionsSchema>;

export interface CallOptions {
  readonly signal?: AbortSignal;
  readonly timeoutMs?: number;
}

export interface ListOptions extends CallOptions {
  /** Continue a listing where the server's `nextCursor` left off. */
  readonly cursor?: string;
  /** Follow every cursor (bounded by `maxPages` and `maxItems`). */
  readonly all?: boolean;
}

/** Events by name, each with the facts of one `ConnectionEvent`. */
export type RegistryEvents = {
  [Type in ConnectionEvent['type']]: [event: Extract<ConnectionEvent, { type: Type }>];
};

/**
 * The MCP servers a host talks to, by name: one lazily opened session each, and the typed
 * operations on them. This is the operator's view; a pipeline's view goes through its
 * access-policy binding.
 */
export class McpServerRegistry extends EventEmitter<RegistryEvents> {
  readonly #options: z.output<typeof registryOptionsSchema>;
  readonly #connections = new Map<string, ServerConnection>();

  constructor(options: McpServerRegistryOptions) {
    super();
    this.#options = parseOptions(registryOptionsSchema, options, 'options');
    const notify = (event: ConnectionEvent) => {
      (this.emit as (type: string, event: ConnectionEvent) => boolean)(event.type, event);
    };
    for (const [name, config] of Object.entries(this.#options.mcpServers)) {
      this.#connections.set(name, new ServerConnection(name, config, notify));
    }
  }

  /** Configured server names, in config order. */
  get serverNames(): string[] {
    return [...this.#connections.keys()];
  }

  has(server: string): boolean {
    return this.#connections.has(server);
  }

  async listResources(
    server: string,
    options: ListOptions = {},
  ): Promise<{ resources: Resource[]; nextCursor?: string }> {
    const pages = await this.#list(server, 'resources/list', options, (client, cursor, request) =>
      client.listResources(cursor ? { cursor } : undefined, request).then((result) => ({
        items: result.resources,
        nextCursor: result.nextCursor,
      })),
    );
    return {
      resources: pages.items,
      ...(pages.nextCursor !== undefined && { nextCursor: pages.nextCursor }),
    };
  }

  async listResourceTemplates(
    server: string,
    options: ListOptions = {},
  ): Promise<{ resourceTemplates: ResourceTemplate[]; nextCursor?: string }> {
    const pages = await this.#list(server, 'resources/templates/list', options, (client, cursor, request) =>
      client.listResourceTemplates(cursor ? { cursor } : undefined, request).then((result) => ({
        items: result.resourceTemplates,
        nextCursor: result.nextCursor,
      })),
    );
    return {
      resourceTemplates: pages.items,
      ...(pages.nextCursor !== undefined && { nextCursor: pages.nextCursor }),
    };
  }

  async listPrompts(
    server: string,
    options: ListOptions = {},
  ): Promise<{ prompts: Prompt[]; nextCursor?: string }> {
    const pages = await this.#list(server, 'prompts/list', options, (client, cursor, request) =>
      client.listPrompts(cursor ? { cursor } : undefined, request).then((result) => ({
        items: result.prompts,
        nextCursor: result.nextCursor,
      })),
    );
    return { prompts: pages.items, ...(pages.nextCursor !== undefined && { nextCursor: pages.nextCursor }) };
  }

  /**
   * Reads one resource. The URI is opaque: it goes to this server's session and nowhere else.
   * A server that reports failure as a `text/plain` "Error: …" body gets RESOURCE_ERROR_BODY
   * (unless its config sets `plainTextErrors: false`).
   */
  async readResource(server: string, uri: string, options: CallOptions = {}): Promise<ReadResourceResult> {
    const connection = this.#connection(server);
    const result = await this.#call(server, 'resources/read', options, (client, request) =>
      client.readResource({ uri }, request),
    );
    const errorBody = connection.config.plainTextErrors ? detectErrorBody(result) : undefined;
    if (errorBody !== undefined) {
      throw new ContextError(
        'RESOURCE_ERROR_BODY',
        `server "${server}" answered ${uri} with an error: ${errorBody}`,
        {
          server,
          value: uri,
        },
      );
    }
    return result;
  }

  async getPrompt(
    server: string,
    name: string,
    args: Record<string, string> = {},
    options: CallOptions = {},
  ): Promise<GetPromptResult> {
    return this.#call(server, 'prompts/get', options, (client, request) =>
      client.getPrompt({ name, arguments: args }, request),
    );
  }

  /** Asks the server for `notifications/resources/updated` on this URI (needs `resources.subscribe`). */
  async subscribeResource(server: string, uri: string, options: CallOptions = {}): Promise<void> {
    await this.#call(server, 'resources/subscribe', options, (client, request) =>
      client.subscribeResource({ uri }, request),
    );
  }

  async unsubscribeResource(server: string, uri: string, options: CallOptions = {}): Promise<void> {
    await this.#call(server, 'resources/unsubscribe', options, (client, request) =>
      client.unsubscribeResource({ uri }, request),
    );
  }

  /** The capabilities the server announced (connects if needed). */
  async getServerCapabilities(server: string): Promise<ServerCapabilities | undefined> {
    return this.#call(server, 'initialize', {}, async (client) => client.getServerCapabilities());
  }

  /** The instructions the server sent in `initialize`, if any (connects if needed). */
  async getInstructions(server: string): Promise<string | undefined> {
    return this.#call(server, 'initialize', {}, async (client) => client.getInstructions());
  }

  /** Closes every session; the registry cannot be used afterwards. */
  async close(): Promise<void> {
    await Promise.all([...this.#connections.values()].map((connection) => connection.close()));
    this.removeAllListeners();
  }

  // --- Internal helpers ---

  #connection(server: string): ServerConnection {
    const connection = this.#connections.get(server);
    if (!connection) {
      throw new ContextError('UNKNOWN_SERVER', `no MCP server named "${server}" is configured`, {
        server,
        field: 'server',
        value: server,
      });
    }
    return connection;
  }

  async #call<T>(
    server: string,
    operation: string,
    options: CallOptions,
    run: (client: Client, request: { signal?: AbortSignal; timeout: number }) => Promise<T>,
  ): Promise<T> {
    const connection = this.#connection(server);
    const timeout = options.timeoutMs ?? connection.config.requestTimeoutMs ?? this.#options.requestTimeoutMs;
    try {
      options.signal?.throwIfAborted();
      // Connecting is not abortable in the SDK: race it, so a hung server cannot outlive the caller.
      const client = await raceAbort(connection.client(), options.signal);
      return await run(client, { signal: options.signal, timeout });
    } catch (error) {
      throw toContextError(error, { server, operation, signal: options.signal });
    }
  }

  async #list<T>(
    server: string,
    operation: string,
    options: ListOptions,
    fetchPage: (
      client: Client,
      cursor: string | undefined,
      request: { signal?: AbortSignal; timeout: number },
    ) => Promise<{ items: T[]; nextCursor?: string }>,
  ): Promise<{ items: T[]; nextCursor?: string }> {
    const page = (cursor: string | undefined) =>
      this.#call(server, operation, options, (client, request) => fetchPage(client, cursor, request));
    if (!options.all) return page(options.cursor);
    const items = await collectPages(page, {
      server,
      operation,
      maxPages: this.#options.maxPages,
      maxItems: this.#options.maxItems,
    });
    return { items };
  }
}
