import { resolve } from 'node:path';
import type { z } from 'zod';
import type { ModelTokenizersOptions } from '../budget/model-tokenizers.js';
import type { ContentCacheOptions } from '../cache/content-cache.js';
import { ContextError } from '../errors.js';
import { McpServerRegistry } from '../mcp/mcp-server-registry.js';
import type { McpServerRegistryOptions } from '../mcp/registry-options.js';
import type { McpServerConfigInput } from '../mcp/server-config.js';
import { parseOptions } from '../options/parse-options.js';
import { AccessPolicy, type AccessPolicyOptions } from '../policy/access-policy.js';
import {
  type PostgresAttachmentStoreOptions,
  postgresStoreOptionsSchema,
} from '../replicas/postgres-store-options.js';
import { type RedisSharedTierOptions, redisTierOptionsSchema } from '../replicas/redis-tier-options.js';
import type { SkillLimitsInput } from '../skills/skill-limits.js';
import type { BudgetOptions } from '../types.js';
import { configFileSchema, registrySettingKeys } from './config-schema.js';
import type { ServiceSettings } from './service-settings.js';

/** The McpServerRegistry options a config file may set (the rest are objects and functions). */
export type RegistrySettings = Pick<McpServerRegistryOptions, (typeof registrySettingKeys)[number]>;

/** A validated `mcp-context.json`. */
export interface ContextConfig {
  /** Server entries as written; `new McpServerRegistry({ mcpServers })` accepts them. */
  readonly mcpServers: Readonly<Record<string, McpServerConfigInput>>;
  /** `new AccessPolicy({ bindings })` accepts them. */
  readonly bindings: AccessPolicyOptions['bindings'];
  /** Agent bindings, when the file has them; `new AccessPolicy({ bindings, agents })` accepts them. */
  readonly agents?: AccessPolicyOptions['agents'];
  /** The ResourceContextProvider's options of the same names. */
  readonly budget?: BudgetOptions;
  readonly cache?: ContentCacheOptions;
  readonly serverInstructions?: z.output<typeof configFileSchema>['serverInstructions'];
  readonly readTimeoutMs?: number;
  readonly turnDeadlineMs?: number;
  /** The provider's `tokenizers`, each path resolved against the config file's folder. */
  readonly tokenizers?: ModelTokenizersOptions;
  /** The provider's `skills` limits, as written. */
  readonly skills?: SkillLimitsInput;
  /**
   * The McpServerRegistry's settings the file gives (`requestTimeoutMs`, `maxReadBytes`,
   * `endpointPolicy` …), as written: `new McpServerRegistry({ mcpServers, ...registry })`.
   */
  readonly registry?: RegistrySettings;
  /** Absolute path of the SQLite pin store, when the file names one. */
  readonly store?: string;
  /** `PostgresAttachmentStore.open()` options, when the file's store is `{ "postgres": … }`. */
  readonly postgres?: PostgresAttachmentStoreOptions;
  /** `new RedisSharedTier()` options (cache `shared`), when the file has a `redis` section. */
  readonly redis?: RedisSharedTierOptions;
  /** `mcp-context serve`'s section, defaults applied; absent when the file has none. */
  readonly service?: ServiceSettings;
}

export interface ParseContextConfigOptions {
  /** Relative `store` paths resolve against this directory (the config file's). Default: the cwd. */
  readonly baseDirectory?: string;
}

/**
 * Validates the contents of an `mcp-context.json`. Errors are ContextErrors whose `field`
 * is the path inside the file, e.g. `config.mcpServers.docs.url`.
 */
export function parseContextConfig(input: unknown, options: ParseContextConfigOptions = {}): ContextConfig {
  const parsed = parseOptions(configFileSchema, input, 'config');
  for (const [name, entry] of Object.entries(parsed.mcpServers)) {
    // A transport factory is a function: it cannot come from a file.
    if (entry.type === 'transport') {
      throw new ContextError(
        'INVALID_OPTION',
        `config.mcpServers.${name}.type: "transport" is for programmatic use only; use stdio (command), "http" or "sse" (got "transport")`,
        { field: `config.mcpServers.${name}.type`, value: 'transport' },
      );
    }
  }
  const mcpServers = parsed.mcpServers as Record<string, McpServerConfigInput>;
  const bindings = parsed.bindings as AccessPolicyOptions['bindings'];
  const agents = parsed.agents as AccessPolicyOptions['agents'];
  // As written (validated above by the registry's own field schemas): the registry applies its defaults.
  const registry = Object.fromEntries(
    registrySettingKeys.flatMap((key) =>
      parsed[key] !== undefined ? [[key, (input as Record<string, unknown>)[key]]] : [],
    ),
  ) as RegistrySettings;
  // The library's own constructors are the validators: no second copy of their rules to drift.
  // Neither opens a connection.
  reroot(() => new McpServerRegistry({ mcpServers, ...registry }), 'options.', 'config.');
  reroot(
    () =>
      new AccessPolicy({ bindings, ...(agents && { agents }) }).refuseUnknownServers(Object.keys(mcpServers)),
    'policy.',
    'config.',
  );
  return {
    mcpServers,
    ...(Object.keys(registry).length > 0 && { registry }),
    bindings,
    ...(agents && { agents }),
    // As written (validated above): the provider and the cache apply their own defaults.
    ...(parsed.budget && { budget: (input as { budget: BudgetOptions }).budget }),
    ...(parsed.cache && { cache: (input as { cache: ContentCacheOptions }).cache }),
    ...(parsed.serverInstructions !== undefined && { serverInstructions: parsed.serverInstructions }),
    ...(parsed.readTimeoutMs !== undefined && { readTimeoutMs: parsed.readTimeoutMs }),
    ...(parsed.turnDeadlineMs !== undefined && { turnDeadlineMs: parsed.turnDeadlineMs }),
    ...(parsed.tokenizers && { tokenizers: tokenizersOf(parsed.tokenizers, options.baseDirectory) }),
    ...(parsed.skills && { skills: (input as { skills: SkillLimitsInput }).skills }),
    ...storeOf(parsed.store, options.baseDirectory),
    // Checked by the tier's own schema; nothing connects until a host creates the tier.
    ...(parsed.redis && {
      redis: parseOptions(redisTierOptionsSchema, parsed.redis, 'config.redis') as RedisSharedTierOptions,
    }),
    // The audit file, like the SQLite store, is relative to the config file.
    ...(parsed.service && {
      service: {
        ...parsed.service,
        ...(parsed.service.auditFile !== undefined && {
          auditFile: resolve(options.baseDirectory ?? process.cwd(), parsed.service.auditFile),
        }),
      },
    }),
  };
}

// --- Internal helpers ---

/** The file's tokenizer paths, relative to its folder, made absolute. */
function tokenizersOf(
  tokenizers: NonNullable<z.output<typeof configFileSchema>['tokenizers']>,
  baseDirectory: string | undefined,
): ModelTokenizersOptions {
  const absolute = (path: string) => resolve(baseDirectory ?? process.cwd(), path);
  return {
    ...(tokenizers.huggingFace && {
      huggingFace: Object.fromEntries(
        Object.entries(tokenizers.huggingFace).map(([model, path]) => [model, absolute(path)]),
      ),
    }),
    ...(tokenizers.gemini !== undefined && { gemini: absolute(tokenizers.gemini) }),
  };
}

function storeOf(
  store: z.output<typeof configFileSchema>['store'],
  baseDirectory: string | undefined,
): Pick<ContextConfig, 'store' | 'postgres'> {
  if (store === undefined) return {};
  if (typeof store === 'string' || 'sqlite' in store) {
    const path = typeof store === 'string' ? store : store.sqlite;
    return { store: resolve(baseDirectory ?? process.cwd(), path) };
  }
  const postgres = parseOptions(postgresStoreOptionsSchema, store.postgres, 'config.store.postgres');
  return { postgres: postgres as PostgresAttachmentStoreOptions };
}

/** Runs a validating constructor and renames the fields of its error to paths in the file. */
function reroot(construct: () => unknown, from: string, to: string): void {
  try {
    construct();
  } catch (error) {
    if (!ContextError.isInstance(error) || error.field === undefined || !error.field.startsWith(from))
      throw error;
    const field = `${to}${error.field.slice(from.length)}`;
    const message = error.message.startsWith(error.field)
      ? `${field}${error.message.slice(error.field.length)}`
      : error.message;
    throw new ContextError(error.code, message, { field, value: error.value }, error);
  }
}
