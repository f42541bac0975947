import { getEventListeners } from 'node:events';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { ConverterRegistry } from '../../src/convert/converter-registry.js';
import { plainTextConverter } from '../../src/convert/converters/plain-text-converter.js';
import { raceAbort } from '../../src/mcp/race-abort.js';
import { TurnDeadline } from '../../src/provider/turn-deadline.js';
import type { InjectionTrace } from '../../src/types.js';
import { startControlledServer } from '../support/controlled-server.js';
import { sharedTokenizer, startProviderHarness } from '../support/provider-harness.js';
import { silentMemoryServer } from '../support/silent-servers.js';

const anHour = 3_600_000;
const statusOf = (trace: InjectionTrace, server: string) =>
  trace.entries.find((entry) => entry.server === server);

/** A provider whose pipeline pins `x://a` on a server that never answers `initialize`. */
async function withSilentPin(limits: { readTimeoutMs: number; turnDeadlineMs: number }) {
  const silent = silentMemoryServer();
  const harness = await startProviderHarness('memory', {
    extraServers: { silent: silent.serverConfig },
    registry: { requestTimeoutMs: anHour },
    provider: limits,
  });
  await harness.attachments.pin({ scope: { pipelineId: 'support' }, server: 'silent', uri: 'x://a' });
  return harness;
}

describe('the turn deadline bounds provide(), connecting included', () => {
  it('a server that never answers initialize costs a turn its read timeout, the others are injected', async () => {
    const { provider, attachments } = await withSilentPin({ readTimeoutMs: 100, turnDeadlineMs: anHour });
    await attachments.pin({ scope: { pipelineId: 'support' }, server: 'gitnexus', uri: 'gitnexus://repos' });
    const { trace } = await provider.provide({ pipelineId: 'support' });
    expect(statusOf(trace, 'silent')).toMatchObject({ status: 'timeout', error: { code: 'READ_TIMEOUT' } });
    expect(statusOf(trace, 'gitnexus')?.status).toBe('injected');
  });

  it('with reads slower than the deadline, the turn returns at the deadline with TURN_DEADLINE fates', async () => {
    const { provider, attachments } = await withSilentPin({ readTimeoutMs: anHour, turnDeadlineMs: 100 });
    await attachments.pin({ scope: { pipelineId: 'support' }, server: 'gitnexus', uri: 'gitnexus://repos' });
    const { trace } = await provider.provide({ pipelineId: 'support' });
    expect(statusOf(trace, 'silent')).toMatchObject({
      status: 'timeout',
      cache: 'miss',
      tokens: 0,
      error: { code: 'TURN_DEADLINE', message: 'x://a was not ready by the turn deadline (100 ms)' },
    });
    expect(statusOf(trace, 'gitnexus')?.status).toBe('injected');
    // How long it waited, within the turn's own duration.
    expect(statusOf(trace, 'silent')?.durationMs).toBeGreaterThan(0);
    expect(statusOf(trace, 'silent')?.durationMs).toBeLessThanOrEqual(trace.durationMs);
  });

  it('40 reads answered at once: what is not converted by the deadline is TURN_DEADLINE, nothing is converted after it', async () => {
    const uris = Array.from({ length: 40 }, (_, index) => `doc://big/${index}`);
    const server = startControlledServer(
      Object.fromEntries(uris.map((uri) => [uri, [{ uri, mimeType: 'text/plain', text: `body of ${uri}` }]])),
    );
    onTestFinished(async () => {
      await server.close();
    });
    // Each conversion takes at least 10 ms: at most 10 of them start within the 100 ms deadline
    // (the 11th is checked at least 100 ms after the first, which came after the turn started),
    // so at least 30 reads are refused, by construction and not by how fast the machine is.
    const conversions: string[] = [];
    const converters = new ConverterRegistry().register({
      ...plainTextConverter,
      name: 'slow-plain-text',
      convert: (input) => {
        const at = performance.now();
        conversions.push(input.uri);
        while (performance.now() < at + 10);
        return plainTextConverter.convert(input);
      },
    });
    const { provider, attachments } = await startProviderHarness('memory', {
      extraServers: { docs: server.serverConfig },
      provider: { turnDeadlineMs: 100, cache: false, converters },
    });
    for (const uri of uris) await attachments.pin({ scope: { pipelineId: 'support' }, server: 'docs', uri });
    const holds = uris.map((uri) => server.holdNextRead(uri));

    const turn = provider.provide({ pipelineId: 'support' });
    await Promise.all(holds.map((hold) => hold.started));
    for (const hold of holds) hold.release();
    const { trace } = await turn;

    const docs = trace.entries.filter((entry) => entry.server === 'docs');
    expect(docs).toHaveLength(40);
    expect(conversions.length).toBeLessThanOrEqual(10);
    const converted = new Set(conversions);
    for (const entry of docs) {
      if (!converted.has(entry.uri)) {
        expect(entry).toMatchObject({ status: 'timeout', error: { code: 'TURN_DEADLINE' } });
      } else if (entry.status !== 'injected') {
        // Converted in time, but not yet counted 100 ms past the deadline (a loaded machine).
        expect(entry).toMatchObject({
          status: 'timeout',
          tokens: 0,
          error: {
            code: 'TURN_DEADLINE',
            message: `${entry.uri} was not counted and rendered by the turn deadline`,
          },
        });
      }
    }
  });
});

describe('the turn deadline bounds the CPU work of reads that answer together', () => {
  it('40 reads of 5 MB answered at once with 25 ms conversions: the turn ends by the deadline, with the ones done and TURN_DEADLINE for the rest', async () => {
    const size = 5 * 1024 * 1024;
    const uris = Array.from({ length: 40 }, (_, index) => `doc://big/${index}`);
    // Flat strings, as a transport's JSON.parse makes them.
    const line = (index: number) => `doc ${index}: a plain line about checkout failures and retries.\n`;
    const server = startControlledServer(
      Object.fromEntries(
        uris.map((uri, index) => [
          uri,
          [{ uri, mimeType: 'text/plain', text: Buffer.alloc(size, line(index)).toString('latin1') }],
        ]),
      ),
    );
    onTestFinished(async () => {
      await server.close();
    });
    // Each conversion takes at least 25 ms: at most 20 fit in the 500 ms, so at least 20 reads
    // are still to be measured, hashed and converted when the deadline falls, whatever the machine.
    const conversions: string[] = [];
    const converters = new ConverterRegistry().register({
      ...plainTextConverter,
      name: 'slow-plain-text',
      convert: (input) => {
        const at = performance.now();
        conversions.push(input.uri);
        while (performance.now() < at + 25);
        return plainTextConverter.convert(input);
      },
    });
    const { provider, attachments, servers } = await startProviderHarness('memory', {
      extraServers: { docs: server.serverConfig },
      registry: { requestTimeoutMs: anHour },
      provider: { turnDeadlineMs: 500, readTimeoutMs: anHour, converters, budget: { maxTokens: 2000 } },
    });
    for (const uri of uris) await attachments.pin({ scope: { pipelineId: 'support' }, server: 'docs', uri });
    // A host's session is open and its tokenizer warm (its first count builds the vocabulary).
    await servers.listResources('docs');
    await sharedTokenizer.count('warm');
    const holds = uris.map((uri) => server.holdNextRead(uri));

    const started = performance.now();
    const turn = provider.provide({ pipelineId: 'support' });
    await Promise.all(holds.map((hold) => hold.started));
    for (const hold of holds) hold.release();
    const { trace, blocks } = await turn;
    const took = performance.now() - started;
    // The turn did not wait for the reads it gave up on: their CPU work goes on after it
    // (they fill the cache), where before all forty were measured and hashed first.
    expect(provider.metrics?.readsInFlight).toBeGreaterThan(0);
    const convertedByTheTurn = new Set(conversions);

    // The deadline (500 ms), its 100 ms for the budget step, the read and the counting in progress
    // (on this 2-core machine shared by a dozen processes: 570-780 ms; before, 1,150 ms and more).
    expect(took).toBeLessThan(500 + 350);
    const docs = trace.entries.filter((entry) => entry.server === 'docs');
    expect(docs).toHaveLength(40);
    expect(convertedByTheTurn.size).toBeGreaterThan(0);
    expect(convertedByTheTurn.size).toBeLessThanOrEqual(21);
    const injected = docs.filter((entry) => entry.status === 'truncated' || entry.status === 'injected');
    expect(injected.length).toBeGreaterThan(0);
    for (const entry of docs) {
      if (entry.status === 'truncated' || entry.status === 'injected') {
        expect(convertedByTheTurn.has(entry.uri)).toBe(true);
      } else if (entry.status === 'omitted-budget') {
        // Converted and counted in time, with no room left in the 2,000-token budget.
        expect(convertedByTheTurn.has(entry.uri)).toBe(true);
        expect(entry.tokens).toBe(0);
      } else {
        expect(entry).toMatchObject({ status: 'timeout', tokens: 0, error: { code: 'TURN_DEADLINE' } });
      }
    }
    // What is shown is framed whole: every 5 MB body is cut, says so, and carries its marker.
    const resources = blocks.filter((block) => block.kind === 'resource');
    expect(resources.map((block) => block.provenance.uri).sort()).toEqual(
      injected.map((entry) => entry.uri).sort(),
    );
    for (const block of resources) {
      expect(block.provenance.truncated).toBe(true);
      expect(block.text).toMatch(/\[truncated: /);
    }
    expect(trace.budget.usedTokens).toBeLessThanOrEqual(trace.budget.maxTokens);

    // Nothing is converted for the turn after it ended; the reads it gave up on settle.
    await vi.waitFor(() => expect(provider.metrics?.readsInFlight).toBe(0), { timeout: 20_000 });
    expect(conversions.length).toBe(convertedByTheTurn.size);
  }, 60_000);
});

describe('the turn deadline ends with the turn', () => {
  const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

  it('no timer is left behind by a turn that returns, or by one that throws', async () => {
    const { provider, attachments } = await startProviderHarness('memory', {
      provider: { turnDeadlineMs: anHour },
    });
    await attachments.pin({ scope: { pipelineId: 'support' }, server: 'gitnexus', uri: 'gitnexus://repos' });
    await provider.provide({ pipelineId: 'support' });
    const before = timers();
    // A warm turn waits on nothing: it makes no deadline timer at all.
    const setTimer = vi.spyOn(globalThis, 'setTimeout');
    onTestFinished(() => setTimer.mockRestore());
    const { trace } = await provider.provide({ pipelineId: 'support' });
    expect(trace.entries.map((entry) => entry.cache)).toEqual(['hit']);
    expect(setTimer).not.toHaveBeenCalled();
    setTimer.mockRestore();
    expect(timers()).toBe(before);

    const host = new AbortController();
    host.abort();
    await expect(provider.provide({ pipelineId: 'support', signal: host.signal })).rejects.toMatchObject({
      code: 'ABORTED',
    });
    expect(timers()).toBe(before);
  });
});

describe('the turn deadline is made when a read first waits', () => {
  const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

  it('a turn that waits on a read has its one deadline timer while it waits, and none after', async () => {
    const { provider } = await withSilentPin({ readTimeoutMs: anHour, turnDeadlineMs: 200 });
    const before = timers();
    const setTimer = vi.spyOn(globalThis, 'setTimeout');
    onTestFinished(() => setTimer.mockRestore());
    const turn = provider.provide({ pipelineId: 'support' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    // One timer of the turn's own: the deadline's, set for what is left of its 200 ms (the
    // registry's request timers are an hour long; the wait above is 50 ms).
    const deadlines = setTimer.mock.calls.filter(([, delay]) => Number(delay) > 100 && Number(delay) <= 200);
    expect(deadlines).toHaveLength(1);
    setTimer.mockRestore();
    // Timers run while it waits (the registry's request timers among them), fewer once it is over.
    const waiting = timers();
    expect(waiting).toBeGreaterThan(before);
    const { trace } = await turn;
    expect(statusOf(trace, 'silent')).toMatchObject({ status: 'timeout', error: { code: 'TURN_DEADLINE' } });
    expect(timers()).toBeLessThan(waiting);
  });

  it('a deadline made late still falls its milliseconds after the turn started, not after it was made', async () => {
    const { provider, attachments } = await withSilentPin({ readTimeoutMs: anHour, turnDeadlineMs: 500 });
    // Resolving the pins takes 400 ms of the 500: the read then waits, and the deadline it
    // makes has 100 ms left (made from scratch it would end the turn at 900 ms).
    const list = attachments.list.bind(attachments);
    attachments.list = async (scope) => {
      await new Promise((resolve) => setTimeout(resolve, 400));
      return list(scope);
    };
    const started = performance.now();
    const { trace } = await provider.provide({ pipelineId: 'support' });
    const took = performance.now() - started;
    expect(statusOf(trace, 'silent')).toMatchObject({
      status: 'timeout',
      error: { code: 'TURN_DEADLINE', message: 'x://a was not ready by the turn deadline (500 ms)' },
    });
    expect(took).toBeGreaterThanOrEqual(490);
    expect(took).toBeLessThan(850);
  });
});

describe('TurnDeadline', () => {
  const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

  it('makes no timer until asked for a signal, one when asked, and none once the turn has ended', () => {
    const before = timers();
    const unasked = new TurnDeadline(anHour, undefined);
    expect(timers()).toBe(before);
    unasked.end();

    const asked = new TurnDeadline(anHour, undefined);
    expect(asked.signal).toBe(asked.deadline);
    expect(timers()).toBe(before + 1);
    asked.end();
    expect(timers()).toBe(before);

    // Asked only after the turn ended (a read that goes on in the background): a signal that
    // never aborts, and no timer left running for the rest of the hour.
    const late = new TurnDeadline(anHour, undefined);
    late.end();
    expect(late.signal.aborted).toBe(false);
    expect(timers()).toBe(before);
  });

  it("answers the same signals every time; a turn's waits share one listener on each, and none stays on the host's", async () => {
    const host = new AbortController();
    const turn = new TurnDeadline(anHour, host.signal);
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      expect(turn.signal).toBe(turn.signal);
      expect(turn.deadline).toBe(turn.deadline);
      expect(turn.signal).not.toBe(turn.deadline);
      // A turn of 20 attachments waiting on both (Node warns past 10 listeners on one signal).
      const answers: (() => void)[] = [];
      const reads = Array.from({ length: 20 }, () => new Promise<void>((resolve) => answers.push(resolve)));
      const waits = reads.flatMap((read) => [raceAbort(read, turn.signal), raceAbort(read, turn.deadline)]);
      expect(getEventListeners(turn.signal, 'abort')).toHaveLength(1);
      expect(getEventListeners(turn.deadline, 'abort')).toHaveLength(1);
      expect(getEventListeners(host.signal, 'abort')).toHaveLength(1);
      for (const answer of answers) answer();
      await Promise.all(waits);
      expect(getEventListeners(turn.signal, 'abort')).toHaveLength(0);
      turn.end();
      expect(getEventListeners(host.signal, 'abort')).toHaveLength(0);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.map((warning) => warning.name)).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
      turn.end();
    }
  });

  it("leaves nothing on a host's signal passed to 1,000 turns, and a signal asked for after the turn ended does not hook it", async () => {
    const host = new AbortController();
    for (let index = 0; index < 1000; index++) {
      const turn = new TurnDeadline(anHour, host.signal);
      await raceAbort(Promise.resolve(), turn.signal);
      turn.end();
    }
    expect(getEventListeners(host.signal, 'abort')).toHaveLength(0);
    const late = new TurnDeadline(anHour, host.signal);
    late.end();
    expect(late.signal.aborted).toBe(false);
    expect(getEventListeners(host.signal, 'abort')).toHaveLength(0);
  });

  it("aborts with the host's signal or with a TimeoutError at the deadline, the deadline alone only with the latter", async () => {
    const host = new AbortController();
    const hosted = new TurnDeadline(anHour, host.signal);
    host.abort(new Error('host'));
    expect(hosted.signal.aborted).toBe(true);
    expect(hosted.deadline.aborted).toBe(false);
    hosted.end();

    const short = new TurnDeadline(20, undefined);
    const { signal } = short;
    await new Promise((resolve) => signal.addEventListener('abort', resolve));
    expect(signal.reason).toMatchObject({
      name: 'TimeoutError',
      message: 'the turn deadline (20 ms) passed',
    });
    short.end();
  });
});
