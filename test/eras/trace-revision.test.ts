import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { startModernServer } from '../../fixtures/modern/start-modern-server.js';
import type { Turn } from '../../src/types.js';
import { startProviderHarness } from '../support/provider-harness.js';

describe("the trace names each server's negotiated MCP revision", () => {
  const harness = async () => {
    const modern = await startModernServer({
      eras: 'modern-only',
      // Fresh for 5 minutes by its own hint (the v2 server's default, ttlMs 0, is never fresh).
      resources: [
        {
          uri: 'note://a',
          name: 'a',
          text: 'alpha',
          mimeType: 'text/plain',
          cacheHint: { ttlMs: 300_000, cacheScope: 'public' },
        },
      ],
    });
    onTestFinished(() => modern.close());
    const started = await startProviderHarness('memory', {
      extraServers: {
        modern: { type: 'http', url: modern.url },
        // Nothing listens there: no session ever tells its revision.
        gone: { type: 'http', url: 'http://127.0.0.1:9/mcp' },
      },
      registry: { reconnect: false },
    });
    const { attachments } = started;
    const scope = { pipelineId: 'support' };
    await attachments.pin({ scope, server: 'gitnexus', uri: 'gitnexus://repos' });
    await attachments.pin({ scope, server: 'modern', uri: 'note://a' });
    await attachments.pin({ scope, server: 'gone', uri: 'note://b' });
    await attachments.pin({ scope, server: 'gitnexus', uri: 'gitnexus://setup' });
    return started;
  };

  it('a 2025 server as 2025-11-25 and a modern-only one as 2026-07-28, each once, in the order the entries name them', async () => {
    const { provider } = await harness();

    const { trace } = await provider.provide({ pipelineId: 'support' });

    expect(trace.entries.map((entry) => [entry.server, entry.status])).toEqual([
      ['gitnexus', 'injected'],
      ['modern', 'injected'],
      ['gone', 'error'],
      ['gitnexus', 'injected'],
    ]);
    expect(trace.servers).toEqual([
      { server: 'gitnexus', protocolVersion: '2025-11-25', pinUpdates: 'ttl' },
      { server: 'modern', protocolVersion: '2026-07-28', pinUpdates: 'ttl' },
    ]);
    expect(Object.isFrozen(trace.servers)).toBe(true);
  });

  it('a kept turn (answered again unrun) names them too', async () => {
    const { provider, policy, attachments } = await harness();
    // Kept turns keep only turns without a failure: the unreachable server's pin goes.
    const [gone] = (await attachments.list({ pipelineId: 'support' })).filter((pin) => pin.server === 'gone');
    if (gone) await attachments.unpin(gone.id);
    const bind = vi.spyOn(policy, 'bind');
    const turn: Turn = { pipelineId: 'support' };
    for (let index = 0; index < 3; index++) await provider.provide(turn);
    bind.mockClear();

    const { trace } = await provider.provide(turn);

    expect(bind).not.toHaveBeenCalled();
    expect(trace.servers).toEqual([
      { server: 'gitnexus', protocolVersion: '2025-11-25', pinUpdates: 'ttl' },
      { server: 'modern', protocolVersion: '2026-07-28', pinUpdates: 'ttl' },
    ]);
  });
});
