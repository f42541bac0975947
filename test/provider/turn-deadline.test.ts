import { describe, expect, it, onTestFinished } from 'vitest';
import type { InjectionTrace } from '../../src/types.js';
import { startControlledServer } from '../support/controlled-server.js';
import { startProviderHarness } from '../support/provider-harness.js';
import { silentMemoryServer } from '../support/silent-servers.js';

const anHour = 3_600_000;
const statusOf = (trace: InjectionTrace, server: string) =>
  trace.entries.find((entry) => entry.server === server);

describe('the turn deadline bounds provide(), connecting included', () => {
  it('a server that never answers initialize costs a turn its read timeout, the others are injected', async () => {
    const silent = silentMemoryServer();
    const { provider, attachments } = await startProviderHarness('memory', {
      extraServers: { silent: silent.serverConfig },
      registry: { requestTimeoutMs: anHour },
      provider: { readTimeoutMs: 100, turnDeadlineMs: anHour },
    });
    await attachments.pin({ scope: { pipelineId: 'support' }, server: 'silent', uri: 'x://a' });
    await attachments.pin({ scope: { pipelineId: 'support' }, server: 'gitnexus', uri: 'gitnexus://repos' });
    const { trace } = await provider.provide({ pipelineId: 'support' });
    expect(statusOf(trace, 'silent')).toMatchObject({ status: 'timeout', error: { code: 'READ_TIMEOUT' } });
    expect(statusOf(trace, 'gitnexus')?.status).toBe('injected');
  });

  it('with reads slower than the deadline, the turn returns at the deadline with TURN_DEADLINE fates', async () => {
    const silent = silentMemoryServer();
    const { provider, attachments } = await startProviderHarness('memory', {
      extraServers: { silent: silent.serverConfig },
      registry: { requestTimeoutMs: anHour },
      provider: { readTimeoutMs: anHour, turnDeadlineMs: 100 },
    });
    await attachments.pin({ scope: { pipelineId: 'support' }, server: 'silent', uri: 'x://a' });
    await attachments.pin({ scope: { pipelineId: 'support' }, server: 'gitnexus', uri: 'gitnexus://repos' });
    const { trace } = await provider.provide({ pipelineId: 'support' });
    expect(statusOf(trace, 'silent')).toMatchObject({ status: 'timeout', error: { code: 'TURN_DEADLINE' } });
    expect(statusOf(trace, 'gitnexus')?.status).toBe('injected');
  });

  it('40 large reads answered at once: what is not converted by the deadline is TURN_DEADLINE, not converted after it', async () => {
    const uris = Array.from({ length: 40 }, (_, index) => `doc://big/${index}`);
    const large = 'lorem ipsum dolor sit amet\n'.repeat(80_000); // ~2 MB each
    const server = startControlledServer(
      Object.fromEntries(uris.map((uri) => [uri, [{ uri, mimeType: 'text/plain', text: large }]])),
    );
    onTestFinished(async () => {
      await server.close();
    });
    const { provider, attachments } = await startProviderHarness('memory', {
      extraServers: { docs: server.serverConfig },
      provider: { turnDeadlineMs: 100, cache: false },
    });
    for (const uri of uris) await attachments.pin({ scope: { pipelineId: 'support' }, server: 'docs', uri });
    const holds = uris.map((uri) => server.holdNextRead(uri));

    const turn = provider.provide({ pipelineId: 'support' });
    await Promise.all(holds.map((hold) => hold.started));
    for (const hold of holds) hold.release();
    const { trace } = await turn;

    const docs = trace.entries.filter((entry) => entry.server === 'docs');
    expect(docs).toHaveLength(40);
    // ~80 MB cannot be converted within 100 ms: the deadline fired between conversions, and
    // every attachment not converted by then says so (none was converted after it).
    const late = docs.filter((entry) => entry.error?.code === 'TURN_DEADLINE');
    expect(late.length).toBeGreaterThan(0);
    for (const entry of late) expect(entry.status).toBe('timeout');
    for (const entry of docs.filter((item) => !late.includes(item))) {
      expect(['injected', 'truncated', 'omitted-budget']).toContain(entry.status);
    }
  });
});
