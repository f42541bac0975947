import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { PostgresAttachmentStore } from '../../src/postgres.js';
import { percentile, round } from '../support/measure.js';
import { type Fleet, startFleet } from '../support/replicas/start-fleet.js';
import { startStatelessHttpServer } from '../support/replicas/stateless-http-server.js';
import type { Figures, ReadmeRow } from '../support/scenario.js';

const replicaCount = 4;
const conversationsPerReplica = 25;
const pinCount = 20;
const readDelayMs = 20;
// The machine's services (`.ci/run` starts them when none listens); the benchmark's own database
// and key prefix, removed afterwards.
const adminUrl = process.env.MCP_CONTEXT_BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const redisUrl = process.env.MCP_CONTEXT_BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * 4 host processes × 25 conversations sharing 20 pipeline pins (in PostgreSQL) against one MCP
 * server on 127.0.0.1 whose reads take 20 ms. With Redis behind the local caches: reads at the
 * server (target: 20, one per pin across the fleet); without it: the same fleet, each replica
 * reading for itself. Turn latency on a replica whose local cache is empty, with and without
 * the shared copy (the burst's latencies, 25 turns at once per process, are mostly CPU). Then `updated` heard by one replica → the entry gone
 * on all the others, p50/p99 (wall clock across processes on one host).
 */
export async function run(options: { quick: boolean }): Promise<Figures> {
  const rounds = options.quick ? 1 : 5;
  const coldSamples = options.quick ? 3 : 15;
  const server = await startStatelessHttpServer(pinCount, 4096, readDelayMs);
  const postgresUrl = await ensureDatabase('mcp_resource_context_bench');
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const keyPrefix = `mcp-context-bench:${randomBytes(4).toString('hex')}:`;
  try {
    const store = await PostgresAttachmentStore.open({ connectionString: postgresUrl, schema });
    for (const uri of server.uris)
      await store.pin({ scope: { pipelineId: 'support' }, server: 'bench', uri });
    await store.close();

    const local = await startFleet(replicaCount, [server.url, postgresUrl, schema, 'none', '']);
    const localReadsBefore = server.reads();
    const burstLocal = await runTurns(local, 0, conversationsPerReplica);
    const localReads = server.reads() - localReadsBefore;
    const coldLocal = await runColdTurns(local, coldSamples);
    await local.close();

    const fleet = await startFleet(replicaCount, [server.url, postgresUrl, schema, redisUrl, keyPrefix]);
    const sharedReadsBefore = server.reads();
    const burstShared = await runTurns(fleet, 0, conversationsPerReplica);
    const reads = server.reads() - sharedReadsBefore;
    const coldShared = await runColdTurns(fleet, coldSamples);

    const invalidation: number[] = [];
    for (let round = 1; round <= rounds; round++) {
      for (const uri of server.uris) invalidation.push(await invalidateAcross(fleet, uri));
      await runTurns(fleet, round, 1); // re-read, so the next round drops real entries
    }
    await fleet.close();

    const p99Ms = percentile(invalidation, 99);
    return {
      replicas: replicaCount,
      conversations: replicaCount * conversationsPerReplica,
      pins: pinCount,
      reads,
      readsWithoutSharedCache: localReads,
      invalidationSamples: invalidation.length,
      invalidationP50Ms: round(percentile(invalidation, 50)),
      p99Ms: round(p99Ms),
      coldTurnP50MsShared: round(percentile(coldShared, 50)),
      coldTurnP99MsShared: round(percentile(coldShared, 99)),
      coldTurnP50MsLocalOnly: round(percentile(coldLocal, 50)),
      coldTurnP99MsLocalOnly: round(percentile(coldLocal, 99)),
      burstTurnP50MsShared: round(percentile(burstShared, 50)),
      burstTurnP50MsLocalOnly: round(percentile(burstLocal, 50)),
      serverReadDelayMs: readDelayMs,
      target: `reads = ${pinCount}; invalidation p99 <= 20 ms`,
      met: reads === pinCount && p99Ms <= 20,
    };
  } finally {
    await server.close();
    await dropSchema(postgresUrl, schema);
    await deleteKeys(keyPrefix);
  }
}

export const readme: ReadmeRow = {
  what: '4 replicas × 25 conversations, 20 shared pins (PostgreSQL + Redis)',
  result: (figures) =>
    `reads at the server **${figures.reads}** (without the shared cache ${figures.readsWithoutSharedCache}); ` +
    `cross-replica invalidation p50 ${figures.invalidationP50Ms} ms, p99 **${figures.p99Ms} ms**; ` +
    `turn on a cold replica p50 ${figures.coldTurnP50MsShared} ms with the shared cache vs ${figures.coldTurnP50MsLocalOnly} ms without`,
  target: '20 reads; p99 ≤ 20 ms',
};

// --- Internal helpers ---

/** Every replica runs its conversations at once; the turns' latencies, in ms. */
async function runTurns(fleet: Fleet, round: number, conversations: number): Promise<number[]> {
  const replicas = Array.from({ length: replicaCount }, (_, index) => index);
  for (const replica of replicas) fleet.tell(replica, { type: 'turns', conversations, round });
  const reports = await Promise.all(replicas.map((replica) => fleet.next(replica, 'turns')));
  return reports.flatMap((report) => report.latencies);
}

/** Replicas 1–3 in turn: `samples` turns each with an emptied local cache, one at a time. */
async function runColdTurns(fleet: Fleet, samples: number): Promise<number[]> {
  const latencies: number[] = [];
  for (let replica = 1; replica < replicaCount; replica++) {
    fleet.tell(replica, { type: 'cold-turns', samples });
    latencies.push(...(await fleet.next(replica, 'turns')).latencies);
  }
  return latencies;
}

/** Replica 0 hears `updated`; ms until the last other replica has dropped the entry. */
async function invalidateAcross(fleet: Fleet, uri: string): Promise<number> {
  const others = Array.from({ length: replicaCount - 1 }, (_, index) => index + 1);
  const dropped = Promise.all(others.map((replica) => fleet.next(replica, 'dropped')));
  fleet.tell(0, { type: 'invalidate', uri });
  const { at } = await fleet.next(0, 'invalidated');
  const reports = await dropped;
  if (reports.some((report) => report.uri !== uri)) throw new Error('a replica dropped another URI');
  return Math.max(...reports.map((report) => report.at)) - at;
}

async function ensureDatabase(name: string): Promise<string> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } catch (error) {
    if ((error as { code?: string }).code !== '42P04') throw error;
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).finally(() => client.end());
}

async function deleteKeys(prefix: string): Promise<void> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 0 });
  try {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}
