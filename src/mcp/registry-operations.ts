import type { CallToolResult, GetPromptResult } from '@modelcontextprotocol/client';
import type { z } from 'zod';
import { ContextError } from '../errors.js';
import { parseOptions } from '../options/parse-options.js';
import type { Telemetry } from '../trace/telemetry.js';
import { callOnSession, type SessionRequest, type Traced } from './call-on-session.js';
import { type CappedReadResult, capReadResult } from './cap-read-result.js';
import { collectPages, type Page } from './collect-pages.js';
import { detectErrorBody } from './detect-error-body.js';
import { type Listing, type ListingKind, listingKinds } from './listing-kinds.js';
import type { McpSession } from './mcp-session.js';
import {
  type CallOptions,
  type CompleteRequest,
  callOptionsSchema,
  completeRequestSchema,
  type ListOptions,
  listOptionsSchema,
  nameSchema,
  promptArgumentsSchema,
  type ReadOptions,
  readOptionsSchema,
  toolArgumentsSchema,
  uriSchema,
} from './operation-schemas.js';
import { parseSkillEntry } from './parse-skill-entry.js';
import { PromptCatalog } from './prompt-catalog.js';
import { redactReadResult } from './redact-read-result.js';
import { requireCapability } from './require-capability.js';
import type { ServerConnection } from './server-connection.js';
import type { Completion } from './server-operations.js';
import type { ServerPool } from './server-pool.js';
import { getSkillResultSchema, type Skill, skillsExtensionId } from './skill-schemas.js';
import { takeLoopTurn } from './take-loop-turn.js';

/** The registry's bounds and telemetry that every request follows. */
export interface OperationSettings {
  readonly requestTimeoutMs: number;
  readonly maxReadBytes: number;
  readonly maxPages: number;
  readonly maxItems: number;
  readonly telemetry?: Telemetry;
}

type ParsedCallOptions = z.output<typeof callOptionsSchema>;

/** The operations a decorator (`AuditedOperations`) wraps and offers alike. */
export type Operations = Pick<
  RegistryOperations,
  'list' | 'readResource' | 'getPrompt' | 'callTool' | 'complete' | 'getSkill' | 'subscription'
>;

/**
 * The typed operations on the pool's servers, unaudited (`AuditedOperations` records them):
 * every input checked once, every request bounded by its timeout and sent to the right session,
 * every answer redacted of the session's credentials, and no credential in any error that leaves.
 */
export class RegistryOperations {
  readonly #pool: ServerPool;
  readonly #settings: OperationSettings;
  // Listing for an argument check is part of the getPrompt it serves: not an operation of its own.
  readonly #prompts = new PromptCatalog((server, principal) =>
    this.list('prompts', server, { all: true, ...(principal !== undefined && { principal }) }),
  );

  constructor(pool: ServerPool, settings: OperationSettings) {
    this.#pool = pool;
    this.#settings = settings;
  }

  /** Forgets what the prompt catalog knows of a server (one principal's, or all of it). */
  forgetPrompts(server: string, principal?: string): void {
    this.#prompts.forget(server, principal);
  }

  /**
   * One page (`cursor` → `nextCursor`) or, with `all`, every page, bounded by `maxPages` and
   * `maxItems` and guarded against repeated cursors. A complete listing sets its count in status.
   */
  list<Kind extends ListingKind>(
    kind: Kind,
    server: string,
    options: ListOptions = {},
  ): Promise<Listing<Kind>> {
    return this.#redacting(server, options, async () => {
      const spec = listingKinds[kind];
      const parsed = parseOptions(listOptionsSchema, options, 'options');
      const page = (cursor: string | undefined) =>
        this.#call(server, spec.operation, parsed, (client, request, traced) =>
          spec.fetchPage(server, client, cursor, request, traced),
        );
      const { items, nextCursor, hints }: Page<unknown> = parsed.all
        ? await collectPages(page, {
            server,
            operation: spec.operation,
            maxPages: this.#settings.maxPages,
            maxItems: this.#settings.maxItems,
          })
        : await page(parsed.cursor);
      // A count is known only for a complete listing.
      if (spec.countField !== undefined && parsed.cursor === undefined && nextCursor === undefined) {
        this.#pool
          .openConnection(server, parsed.principal)
          ?.statusRecord.update({ [spec.countField]: items.length });
      }
      const checked = spec.check === undefined ? items : spec.check(server, items);
      return {
        [kind]: checked,
        ...(nextCursor !== undefined && { nextCursor }),
        ...hints,
      } as Listing<Kind>;
    });
  }

  /** See `McpServerRegistry.readResource`. */
  readResource(server: string, uri: string, options: ReadOptions = {}): Promise<CappedReadResult> {
    return this.#redacting(server, options, async () => {
      const parsedUri = parseOptions(uriSchema, uri, 'uri');
      const parsed = parseOptions(readOptionsSchema, options, 'options');
      return this.#call(
        server,
        'resources/read',
        parsed,
        (client, request, traced) => client.readResource(traced({ uri: parsedUri }), request),
        parsedUri,
        // Redacted with the session that read it: a per-user session knows its principal's tokens.
        (result, connection) => {
          const redacted = redactReadResult(result, connection.redactor);
          const errorBody = connection.config.plainTextErrors ? detectErrorBody(redacted) : undefined;
          if (errorBody !== undefined) {
            throw new ContextError(
              'RESOURCE_ERROR_BODY',
              `server "${server}" answered ${uri} with an error: ${errorBody}`,
              { server, value: uri },
            );
          }
          return capReadResult(redacted, parsed.maxBytes ?? this.#settings.maxReadBytes);
        },
      );
    });
  }

  /** See `McpServerRegistry.getPrompt`. */
  getPrompt(
    server: string,
    name: string,
    args: Record<string, string> = {},
    options: CallOptions = {},
  ): Promise<GetPromptResult> {
    return this.#redacting(server, options, async () => {
      const promptName = parseOptions(nameSchema, name, 'name');
      const promptArguments = parseOptions(promptArgumentsSchema, args, 'arguments');
      const parsed = parseOptions(callOptionsSchema, options, 'options');
      this.#pool.requirePrincipal(server, parsed.principal);
      await this.#prompts.checkArguments(server, promptName, promptArguments, parsed.principal);
      return this.#call(server, 'prompts/get', parsed, (client, request, traced) =>
        client.getPrompt(traced({ name: promptName, arguments: promptArguments }), request),
      );
    });
  }

  /** See `McpServerRegistry.callTool`. */
  callTool(
    server: string,
    name: string,
    args: Record<string, unknown> = {},
    options: CallOptions = {},
  ): Promise<CallToolResult> {
    return this.#redacting(server, options, async () => {
      const toolName = parseOptions(nameSchema, name, 'name');
      const toolArguments = parseOptions(toolArgumentsSchema, args, 'arguments');
      const parsed = parseOptions(callOptionsSchema, options, 'options');
      return this.#call(server, 'tools/call', parsed, (client, request, traced) =>
        client.callTool(traced({ name: toolName, arguments: toolArguments }), request),
      ) as Promise<CallToolResult>;
    });
  }

  /** See `McpServerRegistry.complete`. */
  complete(server: string, request: CompleteRequest, options: CallOptions = {}): Promise<Completion> {
    return this.#redacting(server, options, async () => {
      const parsed = parseOptions(completeRequestSchema, request, 'request');
      const callOptions = parseOptions(callOptionsSchema, options, 'options');
      const ref =
        parsed.template !== undefined
          ? { type: 'ref/resource' as const, uri: parsed.template }
          : { type: 'ref/prompt' as const, name: parsed.prompt ?? '' };
      const { completion } = await this.#call(server, 'completion/complete', callOptions, (client, call) => {
        requireCapability(server, client.getServerCapabilities()?.completions, 'completions');
        return client.complete(
          {
            ref,
            argument: { name: parsed.argument, value: parsed.value },
            ...(parsed.context !== undefined && { context: { arguments: parsed.context } }),
          },
          call,
        );
      });
      return {
        values: completion.values.slice(0, 100),
        ...(completion.total !== undefined && { total: completion.total }),
        ...(completion.hasMore !== undefined && { hasMore: completion.hasMore }),
      };
    });
  }

  /** See `McpServerRegistry.getSkill`. */
  getSkill(server: string, uri: string, options: CallOptions = {}): Promise<Skill> {
    return this.#redacting(server, options, async () => {
      const skillUri = parseOptions(uriSchema, uri, 'uri');
      const callOptions = parseOptions(callOptionsSchema, options, 'options');
      const result = await this.#call(server, 'skills/get', callOptions, (client, call) => {
        requireCapability(
          server,
          client.getServerCapabilities()?.extensions?.[skillsExtensionId],
          skillsExtensionId,
        );
        return client.request(
          { method: 'skills/get', params: { uri: skillUri } },
          getSkillResultSchema,
          call,
        );
      });
      const skill = parseSkillEntry(server, result.skill, `skills/get ${skillUri}`);
      if (skill.uri !== skillUri) {
        throw new ContextError(
          'SKILL_INVALID',
          `server "${server}" answered skills/get ${skillUri} with ${skill.uri}`,
          {
            server,
            value: skillUri,
          },
        );
      }
      return skill;
    });
  }

  /** `resources/subscribe` or `resources/unsubscribe` for one URI. */
  async subscription(
    method: 'resources/subscribe' | 'resources/unsubscribe',
    server: string,
    uri: string,
    options: CallOptions = {},
  ): Promise<void> {
    await this.#redacting(server, options, () =>
      this.#call(
        server,
        method,
        options,
        (client, request, traced) =>
          method === 'resources/subscribe'
            ? client.subscribeResource(traced({ uri }), request)
            : client.unsubscribeResource(traced({ uri }), request),
        uri,
      ),
    );
  }

  /** What the server announced in `initialize` (connects if needed). */
  async initialized<T>(
    server: string,
    options: Pick<CallOptions, 'principal'>,
    pick: (client: McpSession) => T,
  ): Promise<T> {
    const parsed = parseOptions(callOptionsSchema, options, 'options');
    return this.#call(server, 'initialize', parsed, async (client) => pick(client));
  }

  // --- Internal helpers ---

  /** Runs an operation; a failure leaves without any credential of the session it used. */
  async #redacting<T>(server: string, options: CallOptions, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw this.#pool.redactorFor(server, options.principal)?.redactError(error) ?? error;
    }
  }

  async #call<T, R = T>(
    server: string,
    operation: string,
    options: ParsedCallOptions,
    run: (client: McpSession, request: SessionRequest, traced: Traced) => Promise<T>,
    uri?: string,
    finish?: (value: T, connection: ServerConnection) => R,
  ): Promise<R> {
    const config = this.#pool.configured(server).config;
    const started = performance.now();
    const lease = await this.#pool.lease(server, options.principal, operation, {
      ...(options.signal !== undefined && { signal: options.signal }),
      ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
    });
    const connection = lease.connection;
    try {
      // A timeout the caller set (a turn's read timeout) bounds the call, waiting for a session
      // and connecting included: the request gets what is left.
      const timeout =
        options.timeoutMs === undefined
          ? (config.requestTimeoutMs ?? this.#settings.requestTimeoutMs)
          : Math.max(1, Math.round(options.timeoutMs - (performance.now() - started)));
      const value = await callOnSession(
        connection,
        operation,
        {
          signal: options.signal,
          timeout,
          timeoutCoversConnect: options.timeoutMs !== undefined,
          telemetry: this.#settings.telemetry,
        },
        run,
        uri,
      );
      if (finish !== undefined) {
        // A read's own CPU work (redacting, measuring, then the cache's hash and the turn's
        // conversion) on a loop turn of its own: a turn's deadline can fire between two reads.
        await takeLoopTurn();
        return finish(value, connection);
      }
      // Whatever a server sends can echo a credential it was given: listings, prompts, tool
      // results, instructions. A read is redacted by its `finish`, before its byte cap.
      return connection.redactor.redactValue(value).value as unknown as R;
    } finally {
      lease.release();
    }
  }
}
