import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import type { ReadFaultInput } from '../../fixtures/index.js';
import { measureContents } from '../../src/cache/measure-contents.js';
import type { RedisSharedTier, RedisSharedTierMetrics } from '../../src/redis.js';
import type { SharedCacheStatus } from '../../src/types.js';
import type { FaultRedis } from '../support/fault-redis.js';
import { hostileMessages } from '../support/hostile-fleet-input.js';

/** The faulty server's resource every tier case attaches, and what the server says it holds. */
export const tierUri = 'fault://x';
export const serverText = 'what the server holds now';

/** The fleet a tier case acts on: the Redis behind the tier, the provider's tier, where its copy lives. */
export interface Fleet {
  readonly redis: FaultRedis;
  readonly tier: RedisSharedTier;
  readonly keyPrefix: string;
  /** The shared copy's key for the faulty server's `fault://x` (the server's identity, no principal). */
  readonly entryKey: string;
  /** The faulty server's identity, as the tier keys and invalidates it. */
  readonly identity: string;
  /** Another replica's tier on the same Redis and prefix, closed with the case. */
  anotherReplica(): Promise<RedisSharedTier>;
}

/**
 * A fault of the fleet's tier (issue 32): Redis fed hostile values and messages, restarted from an
 * older snapshot, paused or killed. Whatever it does, the turn injects the faulty server's own
 * content (never a planted or outdated copy), says in the trace what the tier did, counts the
 * fault in the tier's metrics, throws nothing, and a later turn succeeds.
 */
export interface TierCase {
  readonly name: string;
  /** What reading `fault://x` does (default: answers `serverText`). */
  readonly fault?: ReadFaultInput;
  /** Done to the fleet before the turn. */
  readonly before?: (fleet: Fleet) => Promise<void>;
  /** Done while the turn runs. */
  readonly during?: (fleet: Fleet) => Promise<void>;
  /** Undone after the turn, before the later one (a paused Redis resumed, a killed one started). */
  readonly after?: (fleet: Fleet) => Promise<void>;
  readonly expected: {
    readonly sharedCache: SharedCacheStatus;
    readonly metrics: Partial<RedisSharedTierMetrics>;
    /** Text that must not reach the model (a planted or outdated copy). */
    readonly never?: string;
    /** The turn ends within this (a stalled Redis costs at most its command timeouts). */
    readonly withinMs?: number;
  };
}

const result = (text: string): ReadResourceResult => ({
  contents: [{ uri: tierUri, mimeType: 'text/plain', text }],
});

/** A copy's body as a replica stores it, with its text and fetch time as given. */
function copyBody(text: string, fetchedAt: number, sha256 = measureContents(result(text)).sha256): string {
  const measured = measureContents(result(text));
  return JSON.stringify({ ...measured, sha256, fetchedAt });
}

/** Plants `body` at the copy's key under the current generations (none raised): served as is before. */
const plant = (body: string) => (fleet: Fleet) =>
  fleet.redis.setHash(fleet.entryKey, { s: '0', u: '0', body });

async function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function nextEvent(emitter: RedisSharedTier, name: 'connection-restored'): Promise<void> {
  return new Promise((resolve) => emitter.once(name, () => resolve()));
}

const planted = 'planted at the copy key';

export const tierCases: TierCase[] = [
  {
    name: 'hostile messages on the invalidation channel while the turn reads: dropped, counted, nothing thrown',
    fault: { kind: 'slow', delayMs: 300, text: serverText },
    during: async (fleet) => {
      for (const message of hostileMessages)
        await fleet.redis.publish(`${fleet.keyPrefix}invalidations`, message);
      await waitFor(() => fleet.tier.metrics.malformedMessages === hostileMessages.length);
    },
    expected: { sharedCache: 'miss', metrics: { malformedMessages: hostileMessages.length } },
  },
  ...(
    [
      ['null', 'null'],
      ['a number', '42'],
      ['an array', `[${JSON.stringify(planted)}]`],
      ['an empty object', '{}'],
      ['a copy whose contents are a string', JSON.stringify({ result: { contents: planted } })],
    ] as const
  ).map(
    ([name, body]): TierCase => ({
      name: `a shared value that is ${name}: a miss, the server read (not INTERNAL_ERROR)`,
      before: plant(body),
      expected: { sharedCache: 'miss', metrics: { malformedCopies: 1 }, never: planted },
    }),
  ),
  {
    name: 'a plain string where a copy belongs: a miss, the server read',
    before: (fleet) => fleet.redis.setString(fleet.entryKey, JSON.stringify(planted)),
    expected: { sharedCache: 'miss', metrics: { malformedCopies: 1, unavailable: 0 }, never: planted },
  },
  {
    name: 'a copy whose text does not match its sha256: a miss, the forged text never served',
    before: plant(copyBody(planted, Date.now(), measureContents(result(serverText)).sha256)),
    expected: { sharedCache: 'miss', metrics: { mismatchedCopies: 1 }, never: planted },
  },
  {
    name: "a copy fetched ten minutes before the reader's clock (ttlMs five): a miss",
    before: plant(copyBody(planted, Date.now() - 10 * 60_000)),
    expected: { sharedCache: 'miss', metrics: { expiredCopies: 1 }, never: planted },
  },
  {
    name: 'Redis restarted from a snapshot older than an invalidation: the copy from before it is never served',
    before: async (fleet) => {
      // Another replica read the resource before it changed, and stored it for the fleet.
      const writer = await fleet.anotherReplica();
      const lookup = await writer.lookup({ server: fleet.identity, uri: tierUri });
      if (lookup.kind !== 'lead') throw new Error(`expected the lease, got ${lookup.kind}`);
      await lookup.fill({ ...measureContents(result(planted)), fetchedAt: Date.now() });
      await fleet.redis.save();
      // Then the resource changed; that replica heard it and told the fleet.
      writer.publish({ kind: 'updated', server: fleet.identity, uri: tierUri });
      await waitFor(() => fleet.tier.metrics.received === 1);
      const restored = Promise.all([
        nextEvent(fleet.tier, 'connection-restored'),
        nextEvent(writer, 'connection-restored'),
      ]);
      await fleet.redis.restartFromSnapshot();
      await restored;
    },
    expected: { sharedCache: 'miss', metrics: { outdatedCopies: 1 }, never: planted },
  },
  {
    name: 'Redis paused (SIGSTOP) through the turn: bounded by the command timeout, read alone',
    before: async (fleet) => fleet.redis.pause(),
    after: async (fleet) => fleet.redis.resume(),
    expected: { sharedCache: 'unavailable', metrics: { hits: 0 }, withinMs: 5_000 },
  },
  {
    name: 'Redis killed before the turn: read alone, and the later turn goes on without it',
    before: (fleet) => fleet.redis.kill(),
    after: (fleet) => fleet.redis.start(),
    expected: { sharedCache: 'unavailable', metrics: { hits: 0 }, withinMs: 5_000 },
  },
];
