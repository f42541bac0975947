import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startGitNexusFixture } from '../../fixtures/index.js';
import { PinSubscriptions, type SubscriptionFailure } from '../../src/cache/pin-subscriptions.js';
import { McpServerRegistry } from '../../src/mcp/mcp-server-registry.js';
import { startControlledServer } from '../support/controlled-server.js';

const a = { server: 'controlled', uri: 'doc://a' };
const b = { server: 'controlled', uri: 'doc://b' };
const text = (uri: string) => [{ uri, mimeType: 'text/plain', text: uri }];

/** Pin subscriptions over a real registry: `controlled` offers subscribe, `plain` does not. */
async function start() {
  const server = startControlledServer({ 'doc://a': text('doc://a'), 'doc://b': text('doc://b') });
  const plain = await startGitNexusFixture({ transport: 'memory' });
  const servers = new McpServerRegistry({
    mcpServers: { controlled: server.serverConfig, plain: plain.serverConfig },
  });
  const failures: SubscriptionFailure[] = [];
  const subscriptions = new PinSubscriptions(servers, (failure) => failures.push(failure));
  onTestFinished(async () => {
    subscriptions.dispose();
    await servers.close();
    await server.close();
    await plain.close();
  });
  return { server, servers, subscriptions, failures };
}

/**
 * A registry whose `changing` server brings no updates on its first session (no
 * resources.subscribe) and does on the next, which `reopen` makes; beside it `steady`, which
 * always does.
 */
async function startChanging() {
  const plain = await startGitNexusFixture({ transport: 'memory' });
  const first = plain.serverConfig;
  if (!('createTransport' in first)) throw new Error('the in-memory fixture has a transport factory');
  const server = startControlledServer({ 'doc://a': text('doc://a') });
  const steady = startControlledServer({ 'doc://b': text('doc://b') });
  let sessions = 0;
  // The first session reaches a server without resources.subscribe, the next one a server with it.
  const changing = {
    type: 'transport' as const,
    createTransport: async () =>
      ++sessions === 1 ? first.createTransport() : server.serverConfig.createTransport(),
  };
  const servers = new McpServerRegistry({ mcpServers: { changing, steady: steady.serverConfig } });
  const subscriptions = new PinSubscriptions(servers);
  onTestFinished(async () => {
    subscriptions.dispose();
    await servers.close();
    await server.close();
    await steady.close();
    await plain.close();
  });
  await servers.getInstructions('changing');
  expect(servers.pinUpdatesOf('changing')).toBe('ttl');
  // The first server goes away; the registry's next session reaches the second.
  const reopen = async () => {
    const reopened = new Promise((resolve) => servers.once('session-opened', resolve));
    await plain.close();
    await servers.readResource('changing', 'doc://a');
    await reopened;
    expect(servers.pinUpdatesOf('changing')).toBe('notifications');
  };
  return { server, subscriptions, reopen };
}

describe('PinSubscriptions', () => {
  it('subscribes what a scope pins, once however many scopes hold it, and unsubscribes with the last holder', async () => {
    const { server, subscriptions } = await start();
    subscriptions.reconcile('pipeline:p', [a, b]);
    subscriptions.reconcile('conversation:c', [a]);
    await subscriptions.settled();
    expect(subscriptions.subscribed).toEqual([a, b]);
    expect(server.subscriptionRequests().sort()).toEqual(['subscribe doc://a', 'subscribe doc://b']);

    subscriptions.reconcile('pipeline:p', []);
    await subscriptions.settled();
    expect(subscriptions.subscribed).toEqual([a]);
    expect(server.subscriptionRequests().slice(2)).toEqual(['unsubscribe doc://b']);

    subscriptions.reconcile('conversation:c', []);
    await subscriptions.settled();
    expect(subscriptions.subscribed).toEqual([]);
    expect(server.subscriptionRequests().slice(3)).toEqual(['unsubscribe doc://a']);
  });

  it('answers the list a scope holds: passed again it is that list, frozen, and nothing is sent', async () => {
    const { server, subscriptions } = await start();
    const given = [a, b];
    const held = subscriptions.reconcile('pipeline:p', given);
    expect(held).toEqual([a, b]);
    expect(held).not.toBe(given);
    expect(Object.isFrozen(held)).toBe(true);
    // The caller's list may change later: the scope keeps its own copy.
    given.pop();
    expect(subscriptions.reconcile('pipeline:p', held)).toBe(held);
    expect(subscriptions.reconcile('pipeline:p', [{ ...a }, { ...b }])).toBe(held);
    await subscriptions.settled();
    expect(server.subscriptionRequests().sort()).toEqual(['subscribe doc://a', 'subscribe doc://b']);

    const emptied = subscriptions.reconcile('pipeline:p', []);
    expect(emptied).toEqual([]);
    expect(subscriptions.reconcile('pipeline:p', emptied)).toBe(emptied);
  });

  it('a scope emptied and then given its pins again subscribes them again', async () => {
    const { server, subscriptions } = await start();
    subscriptions.reconcile('pipeline:p', [a]);
    await subscriptions.settled();
    expect(subscriptions.reconcile('pipeline:p', [])).toEqual([]);
    await subscriptions.settled();
    expect(subscriptions.subscribed).toEqual([]);

    // The emptied scope holds nothing: its old pins are new to it again.
    const again = subscriptions.reconcile('pipeline:p', [{ ...a }]);
    expect(again).toEqual([a]);
    await subscriptions.settled();
    expect(subscriptions.subscribed).toEqual([a]);
    expect(server.subscriptionRequests()).toEqual([
      'subscribe doc://a',
      'unsubscribe doc://a',
      'subscribe doc://a',
    ]);
  });

  it('the same targets again send nothing; a changed target (same count) moves the subscription', async () => {
    const { server, subscriptions } = await start();
    subscriptions.reconcile('pipeline:p', [a]);
    await subscriptions.settled();
    subscriptions.reconcile('pipeline:p', [{ ...a }]);
    await subscriptions.settled();
    expect(server.subscriptionRequests()).toEqual(['subscribe doc://a']);
    subscriptions.reconcile('pipeline:p', [b]);
    await subscriptions.settled();
    // The new subscribe first asks the server's capabilities: the unsubscribe may go out before it.
    expect(server.subscriptionRequests().sort()).toEqual([
      'subscribe doc://a',
      'subscribe doc://b',
      'unsubscribe doc://a',
    ]);
    expect(subscriptions.subscribed).toEqual([b]);
  });

  it('a target on another server with the same URI is another target', async () => {
    const { server, subscriptions } = await start();
    subscriptions.reconcile('pipeline:p', [{ server: 'plain', uri: 'doc://a' }]);
    await subscriptions.settled();
    subscriptions.reconcile('pipeline:p', [a]);
    await subscriptions.settled();
    expect(server.subscriptionRequests()).toEqual(['subscribe doc://a']);
    expect(subscriptions.subscribed).toEqual([a]);
  });

  it('a reordered pin list holds the same subscriptions', async () => {
    const { server, subscriptions } = await start();
    subscriptions.reconcile('pipeline:p', [a, b]);
    await subscriptions.settled();
    subscriptions.reconcile('pipeline:p', [b, a]);
    await subscriptions.settled();
    expect(server.subscriptionRequests().sort()).toEqual(['subscribe doc://a', 'subscribe doc://b']);
    expect(subscriptions.subscribed).toEqual([a, b]);
  });

  it('a server that does not offer resources.subscribe is not asked', async () => {
    const { subscriptions, failures } = await start();
    subscriptions.reconcile('pipeline:p', [{ server: 'plain', uri: 'gitnexus://repos' }]);
    await subscriptions.settled();
    expect(subscriptions.subscribed).toEqual([]);
    expect(failures).toEqual([]);
  });

  it('a server whose open session brings no updates is not held: its pins cost a scope no keys', async () => {
    const { servers, subscriptions } = await start();
    const repos = { server: 'plain', uri: 'gitnexus://repos' };
    await servers.readResource('plain', 'gitnexus://repos');
    expect(servers.pinUpdatesOf('plain')).toBe('ttl');
    const held = subscriptions.reconcile('conversation:c', [repos]);
    expect(held).toEqual([repos]);
    expect(subscriptions.reconcile('conversation:c', held)).toBe(held);
    // Nothing is kept for the conversation's scope: its list alone is remembered.
    expect(subscriptions.scopes).toBe(0);
    subscriptions.reconcile('pipeline:p', [a, repos]);
    await subscriptions.settled();
    expect([subscriptions.heldTargets, subscriptions.subscribed, subscriptions.scopes]).toEqual([1, [a], 1]);
  });

  it('a scope that left a pin out for its server decides again once a session opened: a server that now brings updates is subscribed', async () => {
    const { server, subscriptions, reopen } = await startChanging();
    const pin = { server: 'changing', uri: 'doc://a' };
    const held = subscriptions.reconcile('pipeline:p', [pin]);
    expect(subscriptions.heldTargets).toBe(0);
    await reopen();
    // The same list again: decided again, since a session opened after it left the pin out.
    expect(subscriptions.reconcile('pipeline:p', held)).toEqual([pin]);
    await subscriptions.settled();
    expect(subscriptions.subscribed).toEqual([pin]);
    expect(server.subscriptionRequests()).toEqual(['subscribe doc://a']);
  });

  it('a scope that holds some pins and left one out decides again once a session opened', async () => {
    const { server, subscriptions, reopen } = await startChanging();
    const pin = { server: 'changing', uri: 'doc://a' };
    const kept = { server: 'steady', uri: 'doc://b' };
    const held = subscriptions.reconcile('pipeline:p', [pin, kept]);
    await subscriptions.settled();
    expect([subscriptions.heldTargets, subscriptions.subscribed]).toEqual([1, [kept]]);
    await reopen();
    // The same list again: decided again, since a session opened after it left the pin out.
    expect(subscriptions.reconcile('pipeline:p', held)).toEqual([pin, kept]);
    await subscriptions.settled();
    expect(subscriptions.subscribed).toEqual([kept, pin]);
    expect(server.subscriptionRequests()).toEqual(['subscribe doc://a']);
  });

  it('a scope released while its subscribe is out takes the subscription back', async () => {
    const { server, subscriptions } = await start();
    subscriptions.reconcile('pipeline:p', [a]);
    subscriptions.reconcile('pipeline:p', []);
    await subscriptions.settled();
    expect(server.subscriptionRequests()).toEqual(['subscribe doc://a', 'unsubscribe doc://a']);
    expect(subscriptions.subscribed).toEqual([]);
  });

  it('a failed subscribe or unsubscribe is reported with its target', async () => {
    const { server, subscriptions, failures } = await start();
    subscriptions.reconcile('pipeline:p', [a]);
    await subscriptions.settled();
    server.breakSubscribes();
    subscriptions.reconcile('pipeline:p', [b]);
    await subscriptions.settled();
    expect(failures.map(({ server, uri }) => `${server} ${uri}`).sort()).toEqual([
      'controlled doc://a',
      'controlled doc://b',
    ]);
    for (const failure of failures) expect(String(failure.error)).toContain('subscriptions are broken');
    expect(subscriptions.subscribed).toEqual([]);
  });

  it("a closed session forgets that server's subscriptions; the reopened one subscribes what is held again", async () => {
    const { server, servers, subscriptions } = await start();
    subscriptions.reconcile('pipeline:p', [a, { server: 'plain', uri: 'gitnexus://repos' }]);
    await subscriptions.settled();
    servers.emit('session-closed', { type: 'session-closed', server: 'other' });
    expect(subscriptions.subscribed).toEqual([a]);
    servers.emit('session-closed', { type: 'session-closed', server: 'controlled' });
    expect(subscriptions.subscribed).toEqual([]);
    servers.emit('session-opened', { type: 'session-opened', server: 'other' });
    await subscriptions.settled();
    expect(subscriptions.subscribed).toEqual([]);
    servers.emit('session-opened', { type: 'session-opened', server: 'controlled' });
    await subscriptions.settled();
    expect(subscriptions.subscribed).toEqual([a]);
    expect(server.subscriptionRequests()).toEqual(['subscribe doc://a', 'subscribe doc://a']);
  });

  it('a reopened session does not subscribe again what is still subscribed', async () => {
    const { server, servers, subscriptions } = await start();
    subscriptions.reconcile('pipeline:p', [a]);
    await subscriptions.settled();
    servers.emit('session-opened', { type: 'session-opened', server: 'controlled' });
    await subscriptions.settled();
    expect(server.subscriptionRequests()).toEqual(['subscribe doc://a']);
  });

  it('after dispose it no longer listens to the registry', async () => {
    const { servers, subscriptions } = await start();
    subscriptions.dispose();
    expect(servers.listenerCount('session-opened')).toBe(0);
    expect(servers.listenerCount('session-closed')).toBe(0);
  });
});

describe('PinSubscriptions edges', () => {
  it('a scope that keeps one pin and adds another, then drops both, leaves nothing subscribed', async () => {
    const { server, subscriptions } = await start();
    subscriptions.reconcile('pipeline:p', [a]);
    await subscriptions.settled();
    subscriptions.reconcile('pipeline:p', [a, b]);
    await subscriptions.settled();
    subscriptions.reconcile('pipeline:p', []);
    await subscriptions.settled();
    expect(subscriptions.subscribed).toEqual([]);
    expect(server.subscriptionRequests().sort()).toEqual([
      'subscribe doc://a',
      'subscribe doc://b',
      'unsubscribe doc://a',
      'unsubscribe doc://b',
    ]);
  });

  it('a second holder of a URI whose subscribe failed does not ask again; the next session does', async () => {
    const { server, servers, subscriptions, failures } = await start();
    server.breakSubscribes();
    subscriptions.reconcile('pipeline:p', [a]);
    await subscriptions.settled();
    server.breakSubscribes(false);
    subscriptions.reconcile('conversation:c', [a]);
    await subscriptions.settled();
    expect(failures).toHaveLength(1);
    expect(subscriptions.subscribed).toEqual([]);
    servers.emit('session-opened', { type: 'session-opened', server: 'controlled' });
    await subscriptions.settled();
    expect(subscriptions.subscribed).toEqual([a]);
  });

  it('a server without the resources capability, or one that cannot be reached, is not asked and is no failure', async () => {
    const toolsOnly = {
      type: 'transport' as const,
      createTransport: async () => {
        const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
        const server = new Server({ name: 'tools-only', version: '1.0.0' }, { capabilities: { tools: {} } });
        await server.connect(serverSide);
        return clientSide;
      },
    };
    const unreachable = {
      type: 'transport' as const,
      createTransport: async (): Promise<never> => Promise.reject(new Error('nothing listens')),
    };
    const servers = new McpServerRegistry({ mcpServers: { toolsOnly, unreachable }, reconnect: false });
    const failures: SubscriptionFailure[] = [];
    const subscriptions = new PinSubscriptions(servers, (failure) => failures.push(failure));
    onTestFinished(async () => {
      subscriptions.dispose();
      await servers.close();
    });
    subscriptions.reconcile('pipeline:p', [
      { server: 'toolsOnly', uri: 'doc://a' },
      { server: 'unreachable', uri: 'doc://a' },
    ]);
    await subscriptions.settled();
    expect(failures).toEqual([]);
    expect(subscriptions.subscribed).toEqual([]);
  });
});

describe('PinSubscriptions and a server that comes up late', () => {
  it('pins of a server unreachable when first pinned are subscribed once its session opens', async () => {
    const server = startControlledServer({ 'doc://a': text('doc://a') });
    let attempts = 0;
    const late = {
      type: 'transport' as const,
      createTransport: async () => {
        attempts++;
        if (attempts === 1) throw new Error('not up yet');
        return server.serverConfig.createTransport();
      },
    };
    const servers = new McpServerRegistry({ mcpServers: { late }, reconnect: false });
    const subscriptions = new PinSubscriptions(servers);
    onTestFinished(async () => {
      subscriptions.dispose();
      await servers.close();
      await server.close();
    });
    subscriptions.reconcile('pipeline:p', [{ server: 'late', uri: 'doc://a' }]);
    await subscriptions.settled();
    expect(subscriptions.subscribed).toEqual([]);
    // A turn's read opens the session: the pin is subscribed on it.
    const opened = new Promise((resolve) => servers.once('session-opened', resolve));
    await servers.readResource('late', 'doc://a');
    await opened;
    await subscriptions.settled();
    expect(subscriptions.subscribed).toEqual([{ server: 'late', uri: 'doc://a' }]);
    expect(server.subscriptionRequests()).toEqual(['subscribe doc://a']);
  });

  it('holds at most maxScopes scopes: the least recently reconciled lets go of its pins (unsubscribed with their last holder) and takes them again on its next turn', async () => {
    const server = startControlledServer({ 'doc://a': text('doc://a'), 'doc://b': text('doc://b') });
    const servers = new McpServerRegistry({ mcpServers: { controlled: server.serverConfig } });
    const subscriptions = new PinSubscriptions(servers, () => {}, 2);
    onTestFinished(async () => {
      subscriptions.dispose();
      await servers.close();
      await server.close();
    });
    subscriptions.reconcile('pipeline:p', [a]);
    subscriptions.reconcile('conversation:1', [b]);
    // The pipeline's turn comes again: conversation 1 is the least recent when 2 arrives.
    subscriptions.reconcile('pipeline:p', [a]);
    subscriptions.reconcile('conversation:2', [a]);
    await subscriptions.settled();
    expect(subscriptions.scopes).toBe(2);
    expect(subscriptions.subscribed).toEqual([a]);
    expect(server.subscriptionRequests()).toEqual([
      'subscribe doc://a',
      'subscribe doc://b',
      'unsubscribe doc://b',
    ]);
    for (let index = 3; index < 1_000; index++) subscriptions.reconcile(`conversation:${index}`, [a]);
    expect(subscriptions.scopes).toBe(2);
    subscriptions.reconcile('conversation:1', [b]);
    await subscriptions.settled();
    expect(subscriptions.subscribed).toEqual([a, b]);
  });
});
