import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { ContextError } from '../errors.js';
import { createTransport } from './create-transport.js';
import type { McpServerConfig } from './server-config.js';

export type ConnectionState = 'idle' | 'connecting' | 'connected' | 'disconnected' | 'error' | 'closed';

/** What a session tells its owner, as it happens. */
export type ConnectionEvent =
  | { readonly type: 'session-opened'; readonly server: string }
  | { readonly type: 'session-closed'; readonly server: string }
  | { readonly type: 'resources-list-changed'; readonly server: string }
  | { readonly type: 'resource-updated'; readonly server: string; readonly uri: string }
  | { readonly type: 'prompts-list-changed'; readonly server: string };

const clientInfo = { name: 'mcp-resource-context', version: '0.1.0' };

/**
 * One MCP session with one server: connected on first use, one SDK `Client`, reopened on the
 * next use after the session closes.
 */
export class ServerConnection {
  readonly name: string;
  readonly config: McpServerConfig;
  #state: ConnectionState = 'idle';
  #lastError: ContextError | undefined;
  #connecting: Promise<Client> | undefined;
  #client: Client | undefined;

  readonly #notify: (event: ConnectionEvent) => void;

  constructor(name: string, config: McpServerConfig, notify: (event: ConnectionEvent) => void = () => {}) {
    this.name = name;
    this.config = config;
    this.#notify = notify;
  }

  get state(): ConnectionState {
    return this.#state;
  }

  get lastError(): ContextError | undefined {
    return this.#lastError;
  }

  /** The connected client; connects once, however many callers ask at the same time. */
  async client(): Promise<Client> {
    if (this.#state === 'closed') {
      throw new ContextError('SESSION_CLOSED', `server "${this.name}": the registry is closed`, {
        server: this.name,
      });
    }
    if (this.#client) return this.#client;
    this.#connecting ??= this.#connect().finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }

  async close(): Promise<void> {
    this.#state = 'closed';
    const client = this.#client ?? (await this.#connecting?.catch(() => undefined));
    this.#client = undefined;
    await client?.close();
  }

  // A method, not an inline comparison: close() may run while #connect awaits.
  #closed(): boolean {
    return this.#state === 'closed';
  }

  async #connect(): Promise<Client> {
    this.#state = 'connecting';
    const client = new Client(clientInfo, { capabilities: {} });
    this.#listen(client);
    try {
      const transport = await createTransport(this.config);
      await client.connect(transport, { timeout: this.config.requestTimeoutMs });
    } catch (error) {
      await client.close().catch(() => undefined);
      this.#state = 'error';
      this.#lastError = new ContextError(
        'CONNECT_FAILED',
        `could not connect to server "${this.name}": ${error instanceof Error ? error.message : String(error)}`,
        { server: this.name },
        error,
      );
      throw this.#lastError;
    }
    client.onclose = () => {
      if (this.#client === client) this.#client = undefined;
      if (this.#state !== 'closed') this.#state = 'disconnected';
      this.#notify({ type: 'session-closed', server: this.name });
    };
    if (this.#closed()) {
      await client.close();
      throw new ContextError('SESSION_CLOSED', `server "${this.name}": the registry is closed`, {
        server: this.name,
      });
    }
    this.#state = 'connected';
    this.#client = client;
    this.#notify({ type: 'session-opened', server: this.name });
    return client;
  }

  /**
   * Our own handlers, set before connect() so nothing sent during initialization is missed.
   * (The SDK's `listChanged` client option would re-list only the first page and replace
   * these; it is not used.)
   */
  #listen(client: Client): void {
    const server = this.name;
    // MCP spec, server/resources "List Changed Notification" and "Subscriptions".
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
      this.#notify({ type: 'resources-list-changed', server });
    });
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      this.#notify({ type: 'resource-updated', server, uri: notification.params.uri });
    });
    client.setNotificationHandler(PromptListChangedNotificationSchema, () => {
      this.#notify({ type: 'prompts-list-changed', server });
    });
  }
}
