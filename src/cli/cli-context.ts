import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { type ContextConfig, loadContextConfig, parseContextConfig } from '../config.js';
import { credentialFileOAuthStore, credentialKeyEnv, type OAuthStore } from '../credentials.js';
import {
  type AttachmentStore,
  ContextError,
  McpServerRegistry,
  type McpServerRegistryOptions,
  MemoryAttachmentStore,
} from '../index.js';
import { SqliteAttachmentStore } from '../sqlite.js';
import type { CliOptionValues } from './cli-options.js';
import { createStyle, type Style } from './create-style.js';
import { neutralizeForTerminal, toTerminalJson } from './neutralize-for-terminal.js';

export const defaultConfigPath = 'mcp-context.json';
export const defaultStorePath = 'mcp-context.sqlite';
/** Where `login` keeps OAuth tokens (encrypted with MCP_CONTEXT_CREDENTIAL_KEY). */
export const defaultCredentialsPath = 'mcp-context.credentials.json';

/**
 * What a command works with: output streams and, opened on first use, the config, the
 * server registry and the pin store. `close()` releases whatever was opened.
 */
export class CliContext {
  readonly json: boolean;
  readonly style: Style;
  readonly errorStyle: Style;
  readonly #values: CliOptionValues;
  readonly #stdout: NodeJS.WriteStream;
  readonly #stderr: NodeJS.WriteStream;
  #config: Promise<ContextConfig> | undefined;
  #servers: McpServerRegistry | undefined;
  #store: AttachmentStore | undefined;

  constructor(
    values: CliOptionValues,
    stdout: NodeJS.WriteStream = process.stdout,
    stderr: NodeJS.WriteStream = process.stderr,
  ) {
    this.#values = values;
    this.#stdout = stdout;
    this.#stderr = stderr;
    this.json = values.json === true;
    this.style = createStyle(stdout);
    this.errorStyle = createStyle(stderr);
  }

  /** Writes to stdout with terminal controls a server may have sent neutralized. */
  write(text: string): void {
    this.#stdout.write(neutralizeForTerminal(text));
  }

  /** Writes to stderr with terminal controls a server may have sent neutralized. */
  writeError(text: string): void {
    this.#stderr.write(neutralizeForTerminal(text));
  }

  /** `--json` output: one JSON document on stdout. */
  writeJson(value: unknown): void {
    this.#stdout.write(`${toTerminalJson(value)}\n`);
  }

  /** The config file in use (as given or found), or undefined when there is none. */
  get configPath(): string | undefined {
    const path = this.#values.config;
    if (path !== undefined) return resolve(path);
    return existsSync(defaultConfigPath) ? resolve(defaultConfigPath) : undefined;
  }

  /** `--config`, or ./mcp-context.json when it exists, or an empty config. */
  config(): Promise<ContextConfig> {
    this.#config ??= (async () => {
      const path = this.#values.config;
      if (path !== undefined) return loadContextConfig(path);
      if (existsSync(defaultConfigPath)) return loadContextConfig(defaultConfigPath);
      return parseContextConfig({});
    })();
    return this.#config;
  }

  async servers(): Promise<McpServerRegistry> {
    const config = await this.config();
    this.#servers ??= this.createRegistry(config, 'http://127.0.0.1/callback');
    return this.#servers;
  }

  /** `--credentials`, or ./mcp-context.credentials.json. */
  credentialsPath(): string {
    return resolve(this.#values.credentials ?? defaultCredentialsPath);
  }

  /** OAuth records in the encrypted credential file, when a key is set (else none). */
  oauthStore(): OAuthStore | undefined {
    if (!process.env[credentialKeyEnv]) return undefined;
    return credentialFileOAuthStore(this.credentialsPath());
  }

  /**
   * The config's servers and registry settings, in a registry whose OAuth servers use the tokens `login` stored; a server that needs the user
   * again fails with AUTH_REQUIRED (the message says to run `login`). `authorize` is login's.
   */
  createRegistry(
    config: ContextConfig,
    redirectUrl: string,
    authorize?: NonNullable<McpServerRegistryOptions['authorizer']>['authorize'],
  ): McpServerRegistry {
    return new McpServerRegistry({
      mcpServers: config.mcpServers,
      // requestTimeoutMs, maxReadBytes, endpointPolicy … as the config file gives them.
      ...config.registry,
      ...this.authorizerOptions(redirectUrl, authorize),
    });
  }

  /** The registry's `authorizer` over the tokens `login` stored, when a credential key is set. */
  authorizerOptions(
    redirectUrl: string,
    authorize?: NonNullable<McpServerRegistryOptions['authorizer']>['authorize'],
  ): Pick<McpServerRegistryOptions, 'authorizer'> {
    const store = this.oauthStore();
    if (store === undefined) return {};
    return { authorizer: { redirectUrl, store, ...(authorize !== undefined && { authorize }) } };
  }

  /** `--store`, or the config's `store` (an SQLite file or PostgreSQL), or ./mcp-context.sqlite. */
  async store(): Promise<AttachmentStore> {
    if (this.#store) return this.#store;
    const config = await this.config();
    // Pin caps are checked against the budget the config's turns will plan with.
    const caps = config.budget?.minTokens !== undefined ? { minTokens: config.budget.minTokens } : {};
    if (this.#values.store === undefined && config.postgres) {
      // Loaded only here: `pg` is an optional peer, needed only by configs that name PostgreSQL.
      const { PostgresAttachmentStore } = await import('../postgres.js');
      this.#store = await PostgresAttachmentStore.open({ ...config.postgres, ...caps });
      return this.#store;
    }
    this.#store = new SqliteAttachmentStore(await this.#storePath(), caps);
    return this.#store;
  }

  /**
   * The pins a turn reads. Without better-sqlite3 (an optional peer) and without a store file
   * there can be no pins: `provide` then works from `--attach` alone instead of failing. A
   * store file that exists but cannot be opened is still the error it is.
   */
  async pinsForTurn(): Promise<AttachmentStore> {
    try {
      return await this.store();
    } catch (error) {
      const missing = ContextError.isInstance(error) && error.code === 'DEPENDENCY_MISSING';
      if (missing && !existsSync(await this.#storePath())) return new MemoryAttachmentStore();
      throw error;
    }
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.#servers?.close(), this.#store?.close?.()]);
  }

  async #storePath(): Promise<string> {
    const config = await this.config();
    return this.#values.store !== undefined
      ? resolve(this.#values.store)
      : (config.store ?? resolve(defaultStorePath));
  }
}

/** Where a store keeps its pins, for messages: the SQLite path or PostgreSQL's host/database#schema. */
export function storeLocation(store: AttachmentStore): string {
  const { path, location } = store as { path?: unknown; location?: unknown };
  return String(path ?? location ?? 'the pin store');
}
