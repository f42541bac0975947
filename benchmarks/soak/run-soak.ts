import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { writeHeapSnapshot } from 'node:v8';
import {
  AccessPolicy,
  type InjectionTrace,
  McpServerRegistry,
  MemoryAttachmentStore,
  type MessageAttachment,
  ResourceContextProvider,
} from '../../src/index.js';
import { gitNexusUris, type SoakFleet, startSoakFleet } from './soak-fleet.js';
import { createSoakTally, type MemoryPoint, memoryPoint } from './soak-tally.js';

/**
 * `npm run soak [-- --ci] [-- --seconds=N]`: conversations turning through one
 * ResourceContextProvider while the servers behind it restart, get killed, re-index, notify
 * and misbehave (see soak-fleet.ts). Default 90 s of turning (≤ 2 min in all); `--ci` 20 s.
 *
 * Fails (exit 1) on an unhandled rejection or uncaught exception, on an untyped error
 * (`provide()` throwing, or a trace entry whose error is not a ContextError code, i.e.
 * `INTERNAL_ERROR`), when no turn completed, or when heap-after-GC grows between the end of
 * warm-up and the end by more than the tolerance: max(8 MiB, 10 %) — what the caches may
 * still fill past warm-up — or when a server still holds more than two sessions (or two stdio
 * processes) at the end. RSS is reported, not judged (it follows the allocator, not leaks).
 * Needs `--expose-gc` (the npm script passes it). `SOAK_HEAP_SNAPSHOTS=1` writes a heap
 * snapshot at the end of warm-up and at the end (to compare in DevTools' Comparison view).
 */
async function main(argv: readonly string[]): Promise<number> {
  const ci = argv.includes('--ci');
  const seconds = Number(
    argv.find((argument) => argument.startsWith('--seconds='))?.slice(10) ?? (ci ? 20 : 90),
  );
  if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc (npm run soak does)');
  const tally = createSoakTally();
  process.on('unhandledRejection', (reason) => tally.unhandled('unhandledRejection', reason));
  process.on('uncaughtException', (error) => tally.unhandled('uncaughtException', error));

  const atStart = memoryPoint('start');
  const fleet = await startSoakFleet();
  const servers = new McpServerRegistry({
    mcpServers: fleet.mcpServers,
    requestTimeoutMs: 3_000,
    // The chaos restarts a server every 6–7 s: a session that lived 2 s was a blip, not a crash loop.
    reconnect: { initialDelayMs: 100, maxDelayMs: 1_000, jitter: 0.2, stableSessionMs: 2_000 },
  });
  const attachments = new MemoryAttachmentStore();
  const policy = new AccessPolicy({ bindings: { support: { servers: ['*'] } } });
  const provider = new ResourceContextProvider({
    servers,
    attachments,
    policy,
    budget: { maxTokens: 3_000 },
    readTimeoutMs: 400,
    turnDeadlineMs: 2_500,
  });
  provider.on('injected', (trace: InjectionTrace) => tally.turn(trace));

  const conversations = Array.from({ length: 6 }, (_, index) => `c-${index}`);
  await pinEverything(attachments, conversations, fleet);

  const warmUpMs = Math.max(5_000, seconds * 200);
  const endAt = Date.now() + seconds * 1_000;
  let stopping = false;
  const chaos = runChaos(fleet, () => stopping, tally);
  const workers = Array.from({ length: 3 }, (_, worker) =>
    turnLoop(worker, conversations, () => stopping, provider, tally, fleet),
  );
  const samples: MemoryPoint[] = [];
  await sleep(warmUpMs);
  const afterWarmUp = memoryPoint('after warm-up', true);
  samples.push(afterWarmUp);
  snapshot('after-warm-up');
  while (Date.now() < endAt) {
    await sleep(Math.min(10_000, Math.max(0, endAt - Date.now())));
    if (Date.now() < endAt)
      samples.push(memoryPoint(`at ${Math.round((Date.now() - (endAt - seconds * 1_000)) / 1000)} s`, true));
  }
  stopping = true;
  await Promise.all([chaos, ...workers]);
  const atEnd = memoryPoint('end', true);
  samples.push(atEnd);
  snapshot('end');
  const sessionsAtEnd = fleet.sessions();
  const statesAtEnd = Object.fromEntries(
    servers
      .statuses()
      .map((status) => [status.server, `${status.state} (${status.consecutiveFailures} failures)`]),
  );

  provider.dispose();
  await servers.close();
  await fleet.close();
  const afterClose = memoryPoint('after close', true);

  const toleranceBytes = Math.max(8 * 1024 * 1024, afterWarmUp.heapUsed * 0.1);
  const heapGrowth = atEnd.heapUsed - afterWarmUp.heapUsed;
  const report = tally.report({
    seconds,
    loadAverage: loadavg().map((value) => Math.round(value * 100) / 100),
    fleet: fleet.counts,
    reads: fleet.reads(),
    sessionsAtEnd,
    statesAtEnd,
    memory: [atStart, ...samples, afterClose],
    heapGrowthMiB: toMiB(heapGrowth),
    toleranceMiB: toMiB(toleranceBytes),
  });
  const failures = [
    ...tally.failures(),
    ...(heapGrowth > toleranceBytes
      ? [`heap after GC grew ${toMiB(heapGrowth)} MiB after warm-up (tolerance ${toMiB(toleranceBytes)} MiB)`]
      : []),
    // One session per server (two while a reconnect overlaps): more means restarts leak them.
    ...Object.entries(sessionsAtEnd)
      .filter(([, count]) => count > 2)
      .map(([server, count]) => `${server}: ${count} sessions still open after the restarts`),
  ];
  console.log(report);
  console.log(failures.length === 0 ? 'soak: PASS' : `soak: FAIL\n- ${failures.join('\n- ')}`);
  return failures.length === 0 ? 0 : 1;
}

// --- Internal helpers ---

/** `SOAK_HEAP_SNAPSHOTS=1`: a heap snapshot at the end of warm-up and at the end, to diff in DevTools. */
function snapshot(label: string): void {
  if (process.env.SOAK_HEAP_SNAPSHOTS)
    console.log(`heap snapshot: ${writeHeapSnapshot(`soak-${label}.heapsnapshot`)}`);
}

const toMiB = (bytes: number) => Math.round((bytes / (1024 * 1024)) * 10) / 10;

/** The pipeline pins one resource per server; each conversation pins two or three more. */
async function pinEverything(
  attachments: MemoryAttachmentStore,
  conversations: readonly string[],
  fleet: SoakFleet,
): Promise<void> {
  const pipeline = { pipelineId: 'support' };
  await attachments.pin({ scope: pipeline, server: 'local', uri: gitNexusUris.repos });
  await attachments.pin({ scope: pipeline, server: 'remote', uri: gitNexusUris.setup });
  const perConversation: readonly (readonly [string, string])[] = [
    ['remote', gitNexusUris.context],
    ['child', gitNexusUris.context],
    ['local', gitNexusUris.clusters],
    ['child', gitNexusUris.repos],
    ['remote', gitNexusUris.clusters],
  ];
  for (const [index, conversationId] of conversations.entries()) {
    const scope = { conversationId };
    const [server, uri] = perConversation[index % perConversation.length] ?? ['local', gitNexusUris.repos];
    await attachments.pin({ scope, server, uri });
    await attachments.pin({
      scope,
      server: 'flaky',
      uri: fleet.flakyUris[index % fleet.flakyUris.length] ?? '',
    });
    if (index % 2 === 0) {
      await attachments.pin({
        scope,
        server: 'local',
        template: 'gitnexus://repo/{name}/context',
        arguments: { name: 'acme-shop' },
        maxTokens: 600,
      });
    }
  }
}

/** One of several concurrent turn loops: conversation after conversation until told to stop. */
async function turnLoop(
  worker: number,
  conversations: readonly string[],
  stopping: () => boolean,
  provider: ResourceContextProvider,
  tally: ReturnType<typeof createSoakTally>,
  fleet: SoakFleet,
): Promise<void> {
  for (let turn = worker; !stopping(); turn += 3) {
    const conversationId = conversations[turn % conversations.length] ?? 'c-0';
    // Every few turns the message brings a failing or hanging read, or another flaky document.
    const extra: MessageAttachment[] =
      turn % 5 === 0
        ? [{ server: 'local', uri: gitNexusUris.schema }]
        : turn % 7 === 0
          ? [{ server: 'local', uri: gitNexusUris.processes }]
          : turn % 3 === 0
            ? [{ server: 'flaky', uri: fleet.flakyUris[turn % fleet.flakyUris.length] ?? '' }]
            : [];
    try {
      await provider.provide({
        pipelineId: 'support',
        conversationId,
        message: { text: `turn ${turn}: why does checkout fail?`, attachments: extra },
      });
    } catch (error) {
      tally.thrown(error);
    }
  }
}

/** Restarts, kills, re-indexes and touches on a fixed schedule until told to stop. */
async function runChaos(
  fleet: SoakFleet,
  stopping: () => boolean,
  tally: ReturnType<typeof createSoakTally>,
): Promise<void> {
  const tickMs = 250;
  for (let tick = 1; !stopping(); tick++) {
    await sleep(tickMs);
    const at = tick * tickMs;
    const actions: Promise<void>[] = [];
    if (at % 1_000 === 0) actions.push(fleet.touchFlaky());
    if (at % 2_000 === 0) actions.push(fleet.reindexLocal());
    if (at % 3_000 === 0) actions.push(fleet.reindexRemote());
    if (at % 2_500 === 0) fleet.signalChild('SIGUSR2');
    if (at % 6_000 === 0) actions.push(fleet.restartRemote());
    if (at % 7_000 === 0) fleet.signalChild('SIGKILL');
    for (const result of await Promise.allSettled(actions)) {
      if (result.status === 'rejected') tally.fixtureFailure(result.reason);
    }
  }
}

const code = await main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error);
  return 2;
});
// Whatever a fixture left behind, the verdict is in: do not wait for stray handles.
process.exit(code);
