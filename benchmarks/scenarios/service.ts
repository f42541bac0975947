import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseContextConfig } from '../../src/config.js';
import { openServiceRuntime, type ServiceRuntime } from '../../src/service/service-runtime.js';
import { type BulkHttpServer, startBulkHttpServer } from '../support/bulk-http-server.js';
import { createJsonClient } from '../support/json-client.js';
import { percentile, round } from '../support/measure.js';
import type { Figures, ReadmeRow } from '../support/scenario.js';
import { type ServiceChild, startServiceChild } from '../support/service-child.js';

const mebibyte = 1024 * 1024;
const pipelinePins = 5;
const resourceBytes = 4 * 1024;
const maxTokens = 8_000;
const clients = 32;
/** A content cache small enough for the memory phase's conversations to fill it (derived: 4×). */
const cacheMaxBytes = 16 * mebibyte;
/** Conversations created at once in the memory phase. */
const memoryConcurrency = 8;
const keptText = 'why does checkout fail?';

/**
 * `mcp-context serve` against the same turns in process. The service is a child process
 * (`mcp-context serve` from the sources, `--expose-gc`, its own heap); the in-process side is the
 * provider the service builds from the same config (`openServiceRuntime`), in this process, each
 * with its own SQLite pin file. Five pipeline pins of 4 KB each, an 8k budget, over an MCP server
 * on 127.0.0.1. The client is Node's http with keep-alive, reading every answer to its end and
 * parsing it, as a host would.
 *
 * - Added latency: the same turn, sequential, in interleaved windows (each window runs every kind
 *   of turn in a random order), for a kept turn (the same message again) and a full turn (new
 *   message text each turn: the budget and rendering steps run; content from the cache). Added =
 *   the service's percentile − the in-process one.
 * - Throughput: 32 clients, each its own conversation repeating its kept turn, over keep-alive
 *   connections; turns per second (client and service share the machine's cores).
 * - Memory: a second, fresh service process; 10,000 conversations (quick: 2,000), each a pin of
 *   its own (a resource of its own) and a first turn; then the same work goes on for 5 minutes
 *   (quick: 15 s) with the service's heap after GC sampled. Growth is judged against what the
 *   caches held more at the end (each bounded by its cap).
 */
export async function run(options: { quick: boolean }): Promise<Figures> {
  const { quick } = options;
  const windows = quick ? 3 : 8;
  const turnsPerWindow = 200;
  const loadSeconds = quick ? 3 : 10;
  const conversations = quick ? 2_000 : 10_000;
  const soakSeconds = quick ? 15 : 300;
  const sampleEverySeconds = quick ? 5 : 30;

  const directory = mkdtempSync(join(tmpdir(), 'bench-service-'));
  const server = await startBulkHttpServer(pipelinePins + conversations, resourceBytes, {
    generateOnRead: true,
  });
  const config = {
    mcpServers: { bulk: { type: 'http', url: server.url } },
    bindings: { bench: { servers: ['bulk'] } },
    budget: { maxTokens },
    cache: { maxBytes: cacheMaxBytes },
    store: 'pins.sqlite',
  };
  const pinTargets = server.uris.slice(0, pipelinePins);
  const figures: Figures = {};
  let runtime: ServiceRuntime | undefined;
  let service: ServiceChild | undefined;
  let memoryService: ServiceChild | undefined;
  try {
    // --- latency and throughput: one service process, and the same provider in this one
    runtime = await openServiceRuntime({
      config: parseContextConfig(config, { baseDirectory: folder(directory, 'in-process') }),
      openApiDocument: () => ({}),
    });
    for (const uri of pinTargets)
      await runtime.store.pin({ scope: { pipelineId: 'bench' }, server: 'bulk', uri });
    service = await startServiceChild(writeConfig(folder(directory, 'service'), config));
    const client = createJsonClient(service.url, clients * 2);
    for (const uri of pinTargets)
      await client.post('/v1/pins', { scope: { pipelineId: 'bench' }, server: 'bulk', uri });

    const provider = runtime.provider;
    let question = 0;
    const keptTurn = { pipelineId: 'bench', conversationId: 'kept', message: { text: keptText } };
    const fullTurn = () => ({
      pipelineId: 'bench',
      conversationId: 'full',
      message: { text: `${keptText} (question ${question++})` },
    });
    const works = {
      keptInProcess: () => provider.provide(keptTurn),
      keptService: () => client.post('/v1/provide', keptTurn),
      fullInProcess: () => provider.provide(fullTurn()),
      fullService: () => client.post('/v1/provide', fullTurn()),
    };
    phase('latency');
    const latencies = await interleavedLatencies(works, windows, turnsPerWindow);
    // The answers are the same turn's: the service adds transport, not different work.
    const [inProcessAnswer, serviceAnswer] = await Promise.all([works.keptInProcess(), works.keptService()]);
    const sameUsedTokens =
      inProcessAnswer.trace.budget.usedTokens ===
      (serviceAnswer as { trace: { budget: { usedTokens: number } } }).trace.budget.usedTokens;
    for (const kind of ['kept', 'full'] as const) {
      const local = latencies[`${kind}InProcess`];
      const remote = latencies[`${kind}Service`];
      figures[`${kind}InProcessP50Ms`] = round(percentile(local, 50));
      figures[`${kind}InProcessP99Ms`] = round(percentile(local, 99));
      figures[`${kind}ServiceP50Ms`] = round(percentile(remote, 50));
      figures[`${kind}ServiceP99Ms`] = round(percentile(remote, 99));
      figures[`${kind}AddedP50Ms`] = round(percentile(remote, 50) - percentile(local, 50));
      figures[`${kind}AddedP99Ms`] = round(percentile(remote, 99) - percentile(local, 99));
    }
    figures.sameUsedTokens = sameUsedTokens;

    phase('throughput');
    const load = await turnsPerSecond(
      (index) => client.post('/v1/provide', { ...keptTurn, conversationId: `load-${index}` }),
      loadSeconds,
      service,
    );
    const loadInProcess = await turnsPerSecond(async (index) => {
      await provider.provide({ ...keptTurn, conversationId: `load-${index}` });
      // A kept turn answers within microtasks: without a turn of the event loop, 32 such loops
      // would starve the timer that ends the phase (a host's turns arrive as I/O events anyway).
      await new Promise((resolve) => setImmediate(resolve));
    }, loadSeconds);
    figures.clients = clients;
    figures.turnsPerSecond = Math.round(load.perSecond);
    figures.loadP50Ms = round(percentile(load.latencies, 50));
    figures.loadP99Ms = round(percentile(load.latencies, 99));
    // CPU time per turn on each side: what the shared machine's load does not inflate (much).
    figures.serviceCpuMsPerTurn = round(load.serviceCpuMsPerTurn);
    figures.clientCpuMsPerTurn = round(load.clientCpuMsPerTurn);
    figures.serviceCpuShare = round(load.serviceCpuShare, 2);
    // What two free cores would answer, from those CPU times (the service on one core at most):
    // derived, not measured; the target is judged on turnsPerSecond.
    figures.projectedTurnsPerSecondOnTwoFreeCores = Math.round(
      Math.min(
        1_000 / load.serviceCpuMsPerTurn,
        2_000 / (load.serviceCpuMsPerTurn + load.clientCpuMsPerTurn),
      ),
    );
    figures.inProcessTurnsPerSecond = Math.round(loadInProcess.perSecond);
    client.close();
    await service.close();
    service = undefined;
    await runtime.close();
    runtime = undefined;

    // --- memory: a fresh service process, conversations each with its own pin
    phase('memory');
    memoryService = await startServiceChild(writeConfig(folder(directory, 'memory'), config));
    const memory = await measureMemory(memoryService, server, {
      conversations,
      soakSeconds,
      sampleEverySeconds,
    });
    Object.assign(figures, memory);
  } finally {
    await service?.close();
    await memoryService?.close();
    await runtime?.close();
    await server.close();
    rmSync(directory, { recursive: true, force: true });
  }

  const keptAddedMet = Number(figures.keptAddedP50Ms) <= 1;
  const throughputMet = Number(figures.turnsPerSecond) >= 2_000;
  const heapMet = figures.heapMet === true;
  return {
    ...figures,
    keptAddedMet,
    throughputMet,
    target:
      'kept turn added p50 <= 1 ms; >= 2,000 kept turns/s at 32 clients; no heap growth after GC beyond the caches',
    met: keptAddedMet && throughputMet && heapMet,
  };
}

// --- Internal helpers ---

const began = performance.now();

/** Progress on stderr (the figures go to the results file). */
function phase(name: string): void {
  process.stderr.write(`  service: ${name} (at ${Math.round((performance.now() - began) / 1_000)} s)\n`);
}

function folder(parent: string, name: string): string {
  const path = join(parent, name);
  mkdirSync(path, { recursive: true });
  return path;
}

function writeConfig(directory: string, config: unknown): string {
  const path = join(directory, 'mcp-context.json');
  writeFileSync(path, JSON.stringify(config));
  return path;
}

/**
 * Milliseconds of each work's sequential calls, pooled over `windows` windows; in each window
 * every work runs `turns` calls (after 20 unmeasured ones), the works in a fresh random order, so
 * the machine's load drifts over all of them alike.
 */
async function interleavedLatencies<Key extends string>(
  works: Record<Key, () => Promise<unknown>>,
  windows: number,
  turns: number,
): Promise<Record<Key, number[]>> {
  const keys = Object.keys(works) as Key[];
  const times = Object.fromEntries(keys.map((key) => [key, [] as number[]])) as Record<Key, number[]>;
  // JIT and connections warm on both sides before anything is measured.
  for (const key of keys) for (let index = 0; index < 300; index++) await works[key]();
  for (let window = 0; window < windows; window++) {
    for (const key of shuffled(keys)) {
      for (let index = 0; index < 20; index++) await works[key]();
      for (let index = 0; index < turns; index++) {
        const started = performance.now();
        await works[key]();
        times[key].push(performance.now() - started);
      }
    }
  }
  return times;
}

/**
 * `clients` loops, each awaiting `turn(its index)` again and again for `seconds` (after 1 s
 * unmeasured); with `service`, the CPU time its process and this one spent per turn.
 */
async function turnsPerSecond(
  turn: (client: number) => Promise<unknown>,
  seconds: number,
  service?: ServiceChild,
): Promise<{
  perSecond: number;
  latencies: number[];
  clientCpuMsPerTurn: number;
  serviceCpuMsPerTurn: number;
  serviceCpuShare: number;
}> {
  const latencies: number[] = [];
  let measuring = false;
  let stop = false;
  let completed = 0;
  const loops = Array.from({ length: clients }, async (_, client) => {
    while (!stop) {
      const started = performance.now();
      await turn(client);
      if (measuring) {
        completed++;
        latencies.push(performance.now() - started);
      }
    }
  });
  await sleep(1_000);
  const serviceBefore = (await service?.cpuSeconds()) ?? 0;
  measuring = true;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  await sleep(seconds * 1_000);
  measuring = false;
  const elapsed = (performance.now() - started) / 1_000;
  const cpu = process.cpuUsage(cpuBefore);
  const serviceSeconds = ((await service?.cpuSeconds()) ?? 0) - serviceBefore;
  stop = true;
  await Promise.all(loops);
  return {
    perSecond: completed / elapsed,
    latencies,
    clientCpuMsPerTurn: (cpu.user + cpu.system) / 1e3 / completed,
    serviceCpuMsPerTurn: (serviceSeconds * 1e3) / completed,
    serviceCpuShare: serviceSeconds / elapsed,
  };
}

/**
 * The fresh service's heap after GC and RSS: at its start (pipeline pins added), after
 * `conversations` conversations (each its own pin of a resource of its own, and a first turn), and
 * through `soakSeconds` more of the same, sampled every `sampleEverySeconds`.
 */
async function measureMemory(
  service: ServiceChild,
  server: BulkHttpServer,
  settings: { conversations: number; soakSeconds: number; sampleEverySeconds: number },
): Promise<Figures> {
  const client = createJsonClient(service.url, memoryConcurrency * 2);
  try {
    for (const uri of server.uris.slice(0, pipelinePins))
      await client.post('/v1/pins', { scope: { pipelineId: 'bench' }, server: 'bulk', uri });
    const conversationUris = server.uris.slice(pipelinePins);
    let next = 0;
    const conversation = async () => {
      const index = next++;
      const conversationId = `m-${index}`;
      await client.post('/v1/pins', {
        scope: { conversationId },
        server: 'bulk',
        uri: conversationUris[index % conversationUris.length],
      });
      await client.post('/v1/provide', {
        pipelineId: 'bench',
        conversationId,
        message: { text: `${keptText} (conversation ${index})` },
      });
    };
    await client.post('/v1/provide', { pipelineId: 'bench', message: { text: keptText } });
    const atStart = await service.memoryAfterGc();

    const started = performance.now();
    await Promise.all(
      Array.from({ length: memoryConcurrency }, async () => {
        while (next < settings.conversations) await conversation();
      }),
    );
    const conversationsSeconds = (performance.now() - started) / 1_000;
    const afterConversations = await service.memoryAfterGc();
    const cachesBefore = cachesHeld(await client.get('/metrics'));
    phase(`memory: ${settings.conversations} conversations in ${Math.round(conversationsSeconds)} s; soak`);

    const samples: number[] = [afterConversations.heapUsed];
    let soaking = true;
    const soak = Array.from({ length: memoryConcurrency }, async () => {
      while (soaking) await conversation();
    });
    const soakStarted = performance.now();
    const soakUntil = soakStarted + settings.soakSeconds * 1_000;
    while (performance.now() < soakUntil) {
      await sleep(Math.min(settings.sampleEverySeconds * 1_000, soakUntil - performance.now()));
      samples.push((await service.memoryAfterGc()).heapUsed);
    }
    soaking = false;
    await Promise.all(soak);
    const soakSeconds = (performance.now() - soakStarted) / 1_000;
    const atEnd = await service.memoryAfterGc();
    const cachesAfter = cachesHeld(await client.get('/metrics'));

    const growth = atEnd.heapUsed - afterConversations.heapUsed;
    const cachesGrowth = Math.max(0, cachesAfter.total - cachesBefore.total);
    const tolerance = Math.max(8 * mebibyte, 0.1 * afterConversations.heapUsed);
    const mib = (bytes: number) => round(bytes / mebibyte, 1);
    return {
      conversations: settings.conversations,
      conversationsSeconds: round(conversationsSeconds, 1),
      heapAtStartMiB: mib(atStart.heapUsed),
      rssAtStartMiB: mib(atStart.rss),
      heapAfterConversationsMiB: mib(afterConversations.heapUsed),
      rssAfterConversationsMiB: mib(afterConversations.rss),
      soakSeconds: round(soakSeconds),
      soakConversations: next - settings.conversations,
      heapSamplesMiB: samples.map(mib).join(' '),
      heapAtEndMiB: mib(atEnd.heapUsed),
      rssAtEndMiB: mib(atEnd.rss),
      heapGrowthMiB: mib(growth),
      contentCacheMiB: `${mib(cachesBefore.content)} -> ${mib(cachesAfter.content)} (cap ${mib(cacheMaxBytes)})`,
      derivedCacheMiB: `${mib(cachesBefore.derived)} -> ${mib(cachesAfter.derived)} (cap ${mib(4 * cacheMaxBytes)})`,
      keptTurnsMiB: `${mib(cachesBefore.kept)} -> ${mib(cachesAfter.kept)} (cap 32)`,
      heapGrowthToleranceMiB: mib(tolerance),
      heapMet: growth <= cachesGrowth + tolerance,
    };
  } finally {
    client.close();
  }
}

/** What the service's caches hold, from its /metrics. */
function cachesHeld(metrics: string) {
  const gauge = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(metrics)?.[1] ?? 0);
  const content = gauge('mcp_context_cache_bytes_held');
  const derived = gauge('mcp_context_cache_derived_bytes_held');
  const kept = gauge('mcp_context_cache_kept_turn_bytes');
  return { content, derived, kept, total: content + derived + kept };
}

function shuffled<Item>(items: readonly Item[]): Item[] {
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index--) {
    const other = Math.floor(Math.random() * (index + 1));
    [copy[index], copy[other]] = [copy[other] as Item, copy[index] as Item];
  }
  return copy;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export const readme: ReadmeRow = {
  what: '`mcp-context serve` (a child process, loopback HTTP with keep-alive) against the same turns in process: added latency, kept turns/s at 32 clients, heap after GC through 10,000 conversations and 5 minutes more',
  result: (figures) =>
    `kept turn **+${figures.keptAddedP50Ms} ms** p50 (p99 +${figures.keptAddedP99Ms}), full turn +${figures.fullAddedP50Ms} ms p50 (p99 +${figures.fullAddedP99Ms}); **${figures.turnsPerSecond} turns/s** at ${figures.clients} clients; heap after GC ${figures.heapAtStartMiB} → ${figures.heapAfterConversationsMiB} MiB after ${figures.conversations} conversations, ${figures.heapAtEndMiB} MiB after ${figures.soakSeconds} s more (RSS ${figures.rssAtEndMiB} MiB)`,
  target: '≤ 1 ms; ≥ 2,000/s; no growth beyond the caches',
};
