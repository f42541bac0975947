import { describe, expect, it } from 'vitest';
import { MemoryAttachmentStore } from '../../src/attachments/memory-attachment-store.js';
import { parseContextConfig } from '../../src/config/parse-context-config.js';
import { ContextError } from '../../src/errors.js';
import { McpServerRegistry } from '../../src/mcp/mcp-server-registry.js';
import { nearestKey } from '../../src/options/nearest-key.js';
import { AccessPolicy } from '../../src/policy/access-policy.js';
import { ResourceContextProvider } from '../../src/provider/resource-context-provider.js';
import { createExplorationTools } from '../../src/tools/create-exploration-tools.js';
import { sharedTokenizer } from '../support/provider-harness.js';

function failure(construct: () => unknown): ContextError {
  try {
    construct();
  } catch (error) {
    if (ContextError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a ContextError');
}

const providerParts = () => ({
  servers: new McpServerRegistry({ mcpServers: {} }),
  attachments: new MemoryAttachmentStore(),
  policy: new AccessPolicy({ bindings: {} }),
});

describe('nearestKey', () => {
  it.each([
    ['arg', ['command', 'args', 'env'], 'args'],
    ['comand', ['command', 'args'], 'command'],
    ['readTimeout', ['readTimeoutMs', 'turnDeadlineMs'], 'readTimeoutMs'],
    ['truncaton', ['maxTokens', 'truncation'], 'truncation'],
    ['bindigs', ['mcpServers', 'bindings'], 'bindings'],
    ['zzz', ['command', 'args'], undefined],
    ['t', ['type'], undefined],
  ])('%s among %j → %s', (key, known, expected) => {
    expect(nearestKey(key, known)).toBe(expected);
  });
});

describe('mcpServers entries are strict', () => {
  it('"arg" is refused naming the key and offering "args" (it used to run bare node and time out)', () => {
    const error = failure(() =>
      parseContextConfig({ mcpServers: { docs: { command: 'node', arg: ['x'] } } }),
    );
    expect(error).toMatchObject({
      code: 'INVALID_OPTION',
      field: 'config.mcpServers.docs.arg',
      value: 'arg',
    });
    expect(error.message).toMatch(/^config\.mcpServers\.docs\.arg: unknown key; did you mean "args"\?/);
  });

  it('"comand" is named as an unknown key meaning "command", not as a missing url', () => {
    const error = failure(() => new McpServerRegistry({ mcpServers: { docs: { comand: 'node' } as never } }));
    expect(error.field).toBe('options.mcpServers.docs.comand');
    expect(error.message).toContain('did you mean "command"?');
  });

  it('an entry with both command and url is refused instead of silently becoming stdio', () => {
    const error = failure(() =>
      parseContextConfig({ mcpServers: { docs: { command: 'node', url: 'http://127.0.0.1:1/mcp' } } }),
    );
    expect(error.field).toBe('config.mcpServers.docs.url');
    expect(error.message).toContain('not both');
  });

  it('a key of another kind of server says which kind it belongs to; an empty entry says what it needs', () => {
    expect(
      failure(() => parseContextConfig({ mcpServers: { docs: { command: 'x', headers: {} } } })).message,
    ).toBe(
      'config.mcpServers.docs.headers: applies to remote servers, not to a stdio server ("command") (got {})',
    );
    expect(failure(() => parseContextConfig({ mcpServers: { docs: {} } })).message).toContain(
      'needs "command" (a stdio server) or "url" (a remote server)',
    );
  });

  it('entries hosts write still load: stdio with env, http with headers', () => {
    const config = parseContextConfig({
      mcpServers: {
        docs: { command: 'node', args: ['server.js'], env: { ROOT: '/srv' }, requestTimeoutMs: 5000 },
        gitnexus: { type: 'http', url: 'http://127.0.0.1:4000/mcp', headers: { 'X-Team': 'support' } },
      },
    });
    expect(Object.keys(config.mcpServers)).toEqual(['docs', 'gitnexus']);
  });
});

describe('the config file accepts exactly what the library accepts', () => {
  it('takes every budget option, cache.maxStaleMs and the provider settings, as the provider does', () => {
    const config = parseContextConfig({
      budget: {
        maxTokens: 4000,
        truncation: 'relevant',
        lineAware: false,
        safetyMargin: 0.1,
        reserve: { message: 500 },
      },
      cache: { maxBytes: 1_000_000, ttlMs: 1000, maxStaleMs: 5000 },
      serverInstructions: { maxTokens: 256, exclude: ['everything'] },
      readTimeoutMs: 2000,
      turnDeadlineMs: 9000,
    });
    expect(config.budget).toEqual({
      maxTokens: 4000,
      truncation: 'relevant',
      lineAware: false,
      safetyMargin: 0.1,
      reserve: { message: 500 },
    });
    expect(config.cache).toEqual({ maxBytes: 1_000_000, ttlMs: 1000, maxStaleMs: 5000 });
    const provider = new ResourceContextProvider({
      ...providerParts(),
      tokenizer: sharedTokenizer,
      ...(config.budget && { budget: config.budget }),
      ...(config.cache && { cache: config.cache }),
      ...(config.serverInstructions !== undefined && { serverInstructions: config.serverInstructions }),
      ...(config.readTimeoutMs !== undefined && { readTimeoutMs: config.readTimeoutMs }),
      ...(config.turnDeadlineMs !== undefined && { turnDeadlineMs: config.turnDeadlineMs }),
    } as ConstructorParameters<typeof ResourceContextProvider>[0]);
    provider.dispose();
  });

  it.each([
    [{ budget: { maxTokens: 10, truncaton: 'tail' } }, 'config.budget.truncaton', 'truncation'],
    [{ cache: { maxStale: 5 } }, 'config.cache.maxStale', 'maxStaleMs'],
    [{ readTimeout: 5 }, 'config.readTimeout', 'readTimeoutMs'],
    [{ budget: { maxTokens: 10, reserve: { messages: 5 } } }, 'config.budget.reserve.messages', 'message'],
  ])('%j → %s, did you mean "%s"', (input, field, suggestion) => {
    const error = failure(() => parseContextConfig(input));
    expect(error).toMatchObject({ code: 'INVALID_OPTION', field });
    expect(error.message).toContain(`did you mean "${suggestion}"?`);
  });
});

describe('library option sets are strict', () => {
  it('ResourceContextProvider refuses readTimeout (it used to drop it silently) and offers readTimeoutMs', () => {
    const error = failure(
      () =>
        new ResourceContextProvider({
          ...providerParts(),
          budget: { maxTokens: 100 },
          readTimeout: 5,
        } as never),
    );
    expect(error).toMatchObject({
      code: 'INVALID_OPTION',
      field: 'options.readTimeout',
      value: 'readTimeout',
    });
    expect(error.message).toContain('did you mean "readTimeoutMs"?');
  });

  it('a turn budget override is strict too', async () => {
    const provider = new ResourceContextProvider({
      ...providerParts(),
      policy: new AccessPolicy({ bindings: { support: { servers: [] } } }),
      tokenizer: sharedTokenizer,
      budget: { maxTokens: 100 },
    });
    await expect(
      provider.provide({ pipelineId: 'support', budget: { maxToken: 5 } as never }),
    ).rejects.toMatchObject({ code: 'INVALID_OPTION', field: 'turn.budget.maxToken' });
    provider.dispose();
  });

  it('McpServerRegistry refuses requestTimeout and offers requestTimeoutMs', () => {
    const error = failure(() => new McpServerRegistry({ mcpServers: {}, requestTimeout: 5 } as never));
    expect(error.field).toBe('options.requestTimeout');
    expect(error.message).toContain('did you mean "requestTimeoutMs"?');
  });

  it('createExplorationTools names a missing tokenizer and refuses unknown keys', () => {
    const { servers, policy } = providerParts();
    const missing = failure(() =>
      createExplorationTools({ servers, policy, pipelineId: 'support', maxTokens: 500 } as never),
    );
    expect(missing.field).toBe('options.tokenizer');
    expect(missing.message).toContain('createTiktokenTokenizer()');
    const unknown = failure(() =>
      createExplorationTools({
        servers,
        policy,
        tokenizer: sharedTokenizer,
        pipelineId: 'support',
        maxTokens: 500,
        timeout: 5,
      } as never),
    );
    expect(unknown.field).toBe('options.timeout');
    expect(unknown.message).toContain('did you mean "timeoutMs"?');
  });
});
