import { describe, expect, it, onTestFinished } from 'vitest';
import { startControlledServer } from '../support/controlled-server.js';
import { startProviderHarness } from '../support/provider-harness.js';

const uri = 'doc://a';

/** A provider with `doc://a` of a controlled server pinned to `support`. */
async function start() {
  const server = startControlledServer({ [uri]: [{ uri, mimeType: 'text/plain', text: 'the document' }] });
  onTestFinished(async () => {
    await server.close();
  });
  // Neither the read's timeout nor the turn's deadline comes before the test's own: only the
  // host's signal can end a turn whose read is held.
  const harness = await startProviderHarness('memory', {
    extraServers: { controlled: server.serverConfig },
    provider: { readTimeoutMs: 600_000, turnDeadlineMs: 600_000 },
  });
  await harness.attachments.pin({ scope: { pipelineId: 'support' }, server: 'controlled', uri });
  return { ...harness, server };
}

describe("the host's abort signal", () => {
  it('aborted while a read is out: provide() rejects with ABORTED, and emits no trace', async () => {
    const { provider, server } = await start();
    const held = server.holdNextRead(uri);
    onTestFinished(() => held.release());
    const injected: unknown[] = [];
    provider.on('injected', (trace) => injected.push(trace));
    const host = new AbortController();
    const turn = provider.provide({ pipelineId: 'support', turnId: 't-1', signal: host.signal });
    await held.started;
    host.abort(new Error('the user left'));
    await expect(turn).rejects.toMatchObject({
      code: 'ABORTED',
      message: 'the turn was aborted by the host',
      value: 't-1',
    });
    expect(injected).toEqual([]);
  });

  it('already aborted: provide() rejects with ABORTED', async () => {
    const { provider } = await start();
    await expect(
      provider.provide({ pipelineId: 'support', signal: AbortSignal.abort() }),
    ).rejects.toMatchObject({
      code: 'ABORTED',
    });
  });

  it('a signal that does not abort changes nothing', async () => {
    const { provider } = await start();
    const { trace } = await provider.provide({ pipelineId: 'support', signal: new AbortController().signal });
    expect(trace.entries.map((entry) => [entry.uri, entry.status])).toEqual([[uri, 'injected']]);
  });
});
