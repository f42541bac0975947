import { describe, expect, it } from 'vitest';
import type { Attachment, InjectionTrace } from '../../src/index.js';
import { freshSchema, testDatabaseUrl } from '../replicas/support/postgres-test-database.js';
import { freshPrefix, testRedisUrl } from '../replicas/support/redis-test.js';
import { startCliWorkspace } from './support/cli-workspace.js';
import { runBuiltCli } from './support/run-built-cli.js';

describe('mcp-context with store: { postgres } and redis in mcp-context.json', () => {
  it('pins go to PostgreSQL, and a second process’s turn is a shared hit: one read at the server', async () => {
    // Each command its own process: the second turn's hit can only come from Redis.
    const workspace = await startCliWorkspace({}, runBuiltCli);
    workspace.writeConfig({
      mcpServers: { gitnexus: { type: 'http', url: workspace.fixture.url } },
      bindings: { support: { servers: ['gitnexus'] } },
      store: { postgres: { connectionString: testDatabaseUrl, schema: await freshSchema() } },
      redis: { url: testRedisUrl, keyPrefix: freshPrefix() },
    });
    const added = await workspace.runJson<Attachment>([
      'pin',
      'add',
      '--pipeline',
      'support',
      'gitnexus',
      'gitnexus://repos',
    ]);
    expect(added.code).toBe(0);
    const listed = await workspace.runJson<Attachment[]>(['pin', 'ls', '--pipeline', 'support']);
    expect(listed.json).toEqual([added.json]);

    const first = await workspace.runJson<{ trace: InjectionTrace }>(['provide', '--pipeline', 'support']);
    const second = await workspace.runJson<{ trace: InjectionTrace }>(['provide', '--pipeline', 'support']);
    expect(first.json.trace.entries).toMatchObject([{ status: 'injected', sharedCache: 'miss' }]);
    expect(second.json.trace.entries).toMatchObject([{ status: 'injected', sharedCache: 'hit' }]);
    expect(workspace.fixture.readCount('gitnexus://repos')).toBe(1);
  });
});
