import { describe, expect, it, onTestFinished } from 'vitest';
import { ContentCache } from '../../src/cache/content-cache.js';
import { invalidateOnNotifications } from '../../src/cache/invalidate-on-notifications.js';
import { McpServerRegistry } from '../../src/mcp/mcp-server-registry.js';
import { startControlledServer } from '../support/controlled-server.js';

const body = (text: string) => ({ contents: [{ uri: 'doc://a', mimeType: 'text/plain', text }] });

async function start() {
  const server = startControlledServer({ 'doc://a': body('a').contents });
  const servers = new McpServerRegistry({ mcpServers: { controlled: server.serverConfig } });
  const cache = new ContentCache();
  const unwire = invalidateOnNotifications(servers, cache);
  onTestFinished(async () => {
    unwire();
    await servers.close();
    await server.close();
  });
  await cache.read({ server: 'controlled', uri: 'doc://a' }, async () => body('a'));
  await cache.read({ server: 'controlled', uri: 'doc://b' }, async () => body('b'));
  const events: unknown[] = [];
  cache.on('cache-invalidated', (event) => events.push(event));
  // The session opens with a read: notifications come on it.
  await servers.readResource('controlled', 'doc://a');
  return { server, servers, cache, unwire, events };
}

describe('invalidateOnNotifications', () => {
  it('resources/updated from the server drops that URI', async () => {
    const { server, servers, events } = await start();
    const heard = new Promise((resolve) => servers.once('resource-updated', resolve));
    await server.notifyUpdated('doc://a');
    await heard;
    expect(events).toEqual([
      { server: 'controlled', uri: 'doc://a', reason: 'resource updated', entries: 1 },
    ]);
  });

  it('resources/list_changed from the server drops everything of that server', async () => {
    const { server, servers, events } = await start();
    const heard = new Promise((resolve) => servers.once('resources-list-changed', resolve));
    await server.notifyListChanged();
    await heard;
    expect(events).toEqual([{ server: 'controlled', reason: 'resource list changed', entries: 2 }]);
  });

  it('a closed session marks that server stale', async () => {
    const { servers, events } = await start();
    servers.emit('session-closed', { type: 'session-closed', server: 'controlled' });
    expect(events).toEqual([{ server: 'controlled', reason: 'session closed', entries: 2 }]);
  });

  it('unwired, it no longer listens', async () => {
    const { servers, unwire } = await start();
    unwire();
    expect(servers.listenerCount('resource-updated')).toBe(0);
    expect(servers.listenerCount('resources-list-changed')).toBe(0);
    expect(servers.listenerCount('session-closed')).toBe(0);
  });
});
