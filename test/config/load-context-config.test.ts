import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { loadContextConfig } from '../../src/config/load-context-config.js';
import { parseContextConfig } from '../../src/config/parse-context-config.js';
import { ContextError } from '../../src/errors.js';

const fullConfig = {
  $schema: 'https://example.invalid/mcp-context.schema.json',
  mcpServers: {
    gitnexus: { type: 'http', url: 'http://127.0.0.1:4000/mcp', headers: { 'X-Team': 'support' } },
    docs: { command: 'node', args: ['docs-server.js'], env: { DOCS_ROOT: '/srv/docs' } },
  },
  bindings: {
    support: {
      servers: ['gitnexus', { name: 'docs', resources: ['docs://public/**'] }],
      mimeTypes: ['text/*'],
    },
  },
  agents: { triage: { servers: ['gitnexus'], operations: ['list', 'read'] } },
  budget: { maxTokens: 8000, minTokens: 64, strategy: 'priority' },
  cache: { maxBytes: 50_000_000, ttlMs: 60_000 },
  store: 'state/pins.sqlite',
};

function writeConfig(content: string): string {
  const directory = mkdtempSync(join(tmpdir(), 'mcp-context-config-'));
  onTestFinished(() => rmSync(directory, { recursive: true, force: true }));
  const path = join(directory, 'mcp-context.json');
  writeFileSync(path, content);
  return path;
}

function configError(input: unknown): ContextError {
  try {
    parseContextConfig(input);
  } catch (error) {
    if (ContextError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a ContextError');
}

describe('loadContextConfig', () => {
  it('loads every section and resolves the store against the config file’s directory', async () => {
    const path = writeConfig(JSON.stringify(fullConfig));
    const config = await loadContextConfig(path);
    expect(config).toEqual({
      mcpServers: fullConfig.mcpServers,
      bindings: fullConfig.bindings,
      agents: fullConfig.agents,
      budget: fullConfig.budget,
      cache: fullConfig.cache,
      store: join(path, '..', 'state/pins.sqlite'),
    });
  });

  it('treats an empty object as no servers, no bindings and no store', () => {
    expect(parseContextConfig({})).toEqual({ mcpServers: {}, bindings: {} });
  });

  it('names the file when it does not exist', async () => {
    const missing = join(tmpdir(), 'no-such-dir-mcp-context', 'mcp-context.json');
    await expect(loadContextConfig(missing)).rejects.toMatchObject({
      code: 'INVALID_OPTION',
      field: 'config',
      value: missing,
      message: expect.stringContaining('no such file'),
    });
  });

  it('names the file when it is not JSON', async () => {
    const path = writeConfig('{ "mcpServers": ');
    await expect(loadContextConfig(path)).rejects.toMatchObject({
      code: 'INVALID_OPTION',
      message: expect.stringContaining(`${path}: not JSON`),
    });
  });

  it('refuses a file nested 10,000 deep with INVALID_OPTION naming where, not a stack overflow', async () => {
    const deepObject = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
    const inEnv = writeConfig(`{"mcpServers":{"x":{"command":"node","env":${deepObject}}},"bindings":{}}`);
    await expect(loadContextConfig(inEnv)).rejects.toMatchObject({
      code: 'INVALID_OPTION',
      field: 'config',
      message: `config ${inEnv}: nested deeper than 64 levels (at config.mcpServers.x.env.a.a.a…)`,
    });
    const deepArray = writeConfig(`${'['.repeat(10_000)}${']'.repeat(10_000)}`);
    await expect(loadContextConfig(deepArray)).rejects.toMatchObject({
      code: 'INVALID_OPTION',
      message: expect.stringContaining('nested deeper than 64 levels'),
    });
  });

  it('a deep value that is not nested past the limit still gets a message, not a stack overflow', () => {
    let nested: unknown = 1;
    for (let level = 0; level < 10_000; level++) nested = [nested];
    expect(configError(nested)).toMatchObject({ code: 'INVALID_OPTION', field: 'config' });
  });
});

describe('parseContextConfig names the bad field and value', () => {
  it.each([
    [{ mcpServers: { docs: { type: 'http', url: 'not a url' } } }, 'config.mcpServers.docs.url', 'not a url'],
    [{ mcpServers: { docs: { command: '' } } }, 'config.mcpServers.docs.command', ''],
    [{ mcpServers: { 'bad name!': { command: 'x' } } }, 'config.mcpServers.bad name!', undefined],
    [{ mcpServers: { docs: 'node docs.js' } }, 'config.mcpServers.docs', 'node docs.js'],
    [{ bindings: { support: { servers: 'gitnexus' } } }, 'config.bindings.support.servers', 'gitnexus'],
    [
      { agents: { triage: { servers: ['x'], operations: ['fly'] } } },
      'config.agents.triage.operations.0',
      'fly',
    ],
    [{ budget: { maxTokens: 0 } }, 'config.budget.maxTokens', 0],
    [{ budget: { maxTokens: 100, strategy: 'greedy' } }, 'config.budget.strategy', 'greedy'],
    [{ cache: { maxBytes: -1 } }, 'config.cache.maxBytes', -1],
    [{ cache: { ttlMs: 'soon' } }, 'config.cache.ttlMs', 'soon'],
    [{ store: '' }, 'config.store', ''],
    [{ bindigs: {} }, 'config.bindigs', 'bindigs'],
    [{ budget: { maxTokens: 10, max: 5 } }, 'config.budget.max', 'max'],
    [[], 'config', []],
  ])('%j → %s', (input, field, value) => {
    const error = configError(input);
    expect(error.code).toBe('INVALID_OPTION');
    expect(error.field).toBe(field);
    if (value !== undefined) expect(error.value).toEqual(value);
    expect(error.message.startsWith(field)).toBe(true);
  });

  it.each([
    [{ requestTimeoutMS: 5000 }, 'config.requestTimeoutMS', 'requestTimeoutMs'],
    [{ maxReadByte: 1024 }, 'config.maxReadByte', 'maxReadBytes'],
    [{ endpointPolicy: { denyHost: ['10.0.0.1'] } }, 'config.endpointPolicy.denyHost', 'denyHosts'],
    [{ principalSessions: { idle: 5 } }, 'config.principalSessions.idle', 'idleMs'],
    [{ skills: { maxFile: 3 } }, 'config.skills.maxFile', 'maxFiles'],
  ])('registry and skills settings are strict: %j names %s and the nearest key', (input, field, nearest) => {
    const error = configError(input);
    expect(error).toMatchObject({ code: 'INVALID_OPTION', field });
    expect(error.message).toContain(`did you mean "${nearest}"?`);
  });

  it.each([
    [{ requestTimeoutMs: 0 }, 'config.requestTimeoutMs', 0],
    [{ maxReadBytes: 'lots' }, 'config.maxReadBytes', 'lots'],
    [{ endpointPolicy: { preset: 'paranoid' } }, 'config.endpointPolicy.preset', 'paranoid'],
    [{ reconnect: { jitter: 5 } }, 'config.reconnect.jitter', 5],
    [{ skills: { maxPerTurn: -1 } }, 'config.skills.maxPerTurn', -1],
  ])('registry and skills settings are checked by the library’s schemas: %j → %s', (input, field, value) => {
    expect(configError(input)).toMatchObject({ code: 'INVALID_OPTION', field, value });
  });

  it('keeps the registry’s settings and the skills limits as written, for the registry and the provider', () => {
    const config = parseContextConfig({
      mcpServers: {},
      requestTimeoutMs: 5000,
      maxReadBytes: 1024,
      maxItems: 50,
      endpointPolicy: { denyHosts: ['169.254.169.254'] },
      skills: { maxPerTurn: 2 },
    });
    expect(config.registry).toEqual({
      requestTimeoutMs: 5000,
      maxReadBytes: 1024,
      maxItems: 50,
      endpointPolicy: { denyHosts: ['169.254.169.254'] },
    });
    expect(config.skills).toEqual({ maxPerTurn: 2 });
  });

  it('keeps the tokenizer files, each path resolved against the config file’s directory', () => {
    const config = parseContextConfig(
      {
        mcpServers: {},
        tokenizers: {
          huggingFace: { 'qwen2.5-*': 'models/qwen/tokenizer.json', llama: '/srv/llama/tokenizer.json' },
          gemini: 'models/gemma3/tokenizer.json',
        },
      },
      { baseDirectory: '/etc/mcp' },
    );
    expect(config.tokenizers).toEqual({
      huggingFace: { 'qwen2.5-*': '/etc/mcp/models/qwen/tokenizer.json', llama: '/srv/llama/tokenizer.json' },
      gemini: '/etc/mcp/models/gemma3/tokenizer.json',
    });
    expect(configError({ tokenizers: { huggingface: {} } })).toMatchObject({
      code: 'INVALID_OPTION',
      field: 'config.tokenizers.huggingface',
    });
  });

  it('refuses a programmatic transport entry, which a file cannot express', () => {
    expect(configError({ mcpServers: { memory: { type: 'transport' } } })).toMatchObject({
      code: 'INVALID_OPTION',
      field: 'config.mcpServers.memory.type',
    });
  });
});
