import { describe, expect, it } from 'vitest';
import { parseContextConfig } from '../../src/config.js';

const base = { mcpServers: {}, bindings: {} };

describe('mcp-context.json for several replicas', () => {
  it('store: { postgres } and redis are checked by the store’s and the tier’s own options', () => {
    const config = parseContextConfig({
      ...base,
      store: { postgres: { connectionString: 'postgres://app@db:5432/app', schema: 'mcp_context' } },
      redis: { url: 'redis://cache:6379', keyPrefix: 'support-bot:' },
    });
    expect(config.store).toBeUndefined();
    expect(config.postgres).toMatchObject({
      connectionString: 'postgres://app@db:5432/app',
      schema: 'mcp_context',
    });
    expect(config.redis).toMatchObject({
      url: 'redis://cache:6379',
      keyPrefix: 'support-bot:',
      leaseMs: 2_000,
    });
  });

  it('store: { sqlite } is the same as a path', () => {
    const config = parseContextConfig(
      { ...base, store: { sqlite: 'pins.sqlite' } },
      { baseDirectory: '/srv/app' },
    );
    expect(config.store).toBe('/srv/app/pins.sqlite');
    expect(config.postgres).toBeUndefined();
  });

  it.each([
    [{ store: { postgres: { schema: 'Not-An-Identifier' } } }, 'config.store.postgres.schema'],
    [{ store: { postgres: { queryTimeoutMs: 0 } } }, 'config.store.postgres.queryTimeoutMs'],
    [{ redis: { leaseMs: -1 } }, 'config.redis.leaseMs'],
    [{ redis: { url: '' } }, 'config.redis.url'],
  ])('names the bad field (%j)', (section, field) => {
    expect(() => parseContextConfig({ ...base, ...section })).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTION', field }),
    );
  });
});
