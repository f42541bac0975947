import { type ChatHost, libraryHost } from '../support/chat-hosts.js';
import { withEncoderLoaded } from '../support/context-bench.js';
import { round, settledHeap } from '../support/measure.js';
import type { Figures, ReadmeRow } from '../support/scenario.js';
import { startSteadyChatServer } from '../support/steady-chat-server.js';

const mebibyte = 1024 * 1024;
const kibibyte = 1024;
const maxTokens = 32_000;
// hostLike's first turns: 20 pipeline pins × 32 KB, 5 notes × 1 KB per conversation, a new
// 16 KB message attachment every turn.
const sizes = { pins: 20, pinBytes: 32 * 1024, notes: 5, noteBytes: 1024, attachmentBytes: 16 * 1024 };
const smallCacheBytes = 16 * mebibyte;
// Caches as small as they go (1 MiB of content, 1 byte derived): what lies outside their bounds.
const noCaches = { maxBytes: mebibyte, derivedMaxBytes: 1 };

/**
 * The default footprint (issue 38.3): the first turns of many conversations (10,000; quick:
 * 1,000), each pinning 5 notes × 1 KB before its turn, through one provider with the default
 * caches over Streamable HTTP on 127.0.0.1, again with `cache.maxBytes` 16 MiB, and again with
 * caches as small as they go (what lies outside their bounds: change history, pins, subscriptions,
 * the count-bounded caches), each through a provider of its own whose caches 32 conversations
 * warm first. Figures: the heap after full GCs and finalizers (settledHeap) before and after, its
 * growth per conversation, RSS at the end, and what the content and derived caches hold by their
 * own accounting. Target: growth per conversation ≤ 2× its pinned content + 4 KiB (14 KiB).
 */
export async function run(options: { quick: boolean }): Promise<Figures> {
  const conversations = options.quick ? 1_000 : 10_000;
  const server = await startSteadyChatServer(sizes);
  try {
    return await withEncoderLoaded(async () => {
      const defaults = await firstTurns(server, conversations, 'default');
      const small = await firstTurns(server, conversations, 'small', { maxBytes: smallCacheBytes });
      const outside = await firstTurns(server, conversations, 'outside', noCaches);
      const pinnedBytes = sizes.notes * sizes.noteBytes;
      const target = (2 * pinnedBytes + 4 * kibibyte) / kibibyte;
      return {
        heapKiBPerConversation: defaults.perConversationKiB,
        target: `heap per conversation <= ${target} KiB (2x pinned + 4 KiB)`,
        met: defaults.perConversationKiB <= target,
        conversations,
        pinnedKiBPerConversation: pinnedBytes / kibibyte,
        heapBeforeMiB: defaults.beforeMiB,
        heapAfterMiB: defaults.afterMiB,
        rssMiB: defaults.rssMiB,
        contentMiB: defaults.contentMiB,
        derivedMiB: defaults.derivedMiB,
        smallCacheHeapAfterMiB: small.afterMiB,
        smallCacheHeapKiBPerConversation: small.perConversationKiB,
        smallCacheRssMiB: small.rssMiB,
        outsideCachesKiBPerConversation: outside.perConversationKiB,
      };
    });
  } finally {
    await server.close();
  }
}

export const readme: ReadmeRow = {
  what: 'the default footprint: first turns of many conversations (5 notes × 1 KB pinned each, 20 pins × 32 KB, a new 16 KB attachment) through one provider, heap after GC and finalizers',
  result: (figures) =>
    `${figures.conversations} conversations: heap ${figures.heapBeforeMiB} → **${figures.heapAfterMiB} MiB** ` +
    `(${figures.heapKiBPerConversation} KiB a conversation), RSS ${figures.rssMiB} MiB; caches ${figures.contentMiB} MiB content, ` +
    `${figures.derivedMiB} MiB derived; \`cache.maxBytes\` 16 MiB: ${figures.smallCacheHeapAfterMiB} MiB ` +
    `(${figures.smallCacheHeapKiBPerConversation} KiB a conversation); outside the caches ` +
    `${figures.outsideCachesKiBPerConversation ?? '–'} KiB a conversation`,
  target: '≤ 2× pinned + 4 KiB a conversation',
};

// --- Internal helpers ---

async function firstTurns(
  server: Awaited<ReturnType<typeof startSteadyChatServer>>,
  conversations: number,
  // Each run's conversations are its own (new ids, new notes).
  label: string,
  cache?: { maxBytes: number; derivedMaxBytes?: number },
) {
  const host: ChatHost = await libraryHost('head', server, maxTokens, cache);
  let turn = 0;
  const first = async () => {
    const conversation = `${label}-${turn}`;
    await host.open(conversation, server.notes(conversation));
    const attachment = server.attachment(`${label}-turn-${turn++}`);
    await host.turn({
      conversation,
      text: 'why does the parser fail when',
      attachment,
      newUris: [attachment],
    });
  };
  try {
    // The pipeline's pins read, their renderings made and the code warm: no conversation's.
    for (let index = 0; index < 32; index++) await first();
    const before = await settledHeap();
    for (let index = 0; index < conversations; index++) await first();
    const heapUsed = await settledHeap();
    const { rss } = process.memoryUsage();
    const cached = host.cacheBytes();
    return {
      beforeMiB: round(before / mebibyte, 1),
      afterMiB: round(heapUsed / mebibyte, 1),
      perConversationKiB: round((heapUsed - before) / conversations / kibibyte, 1),
      rssMiB: round(rss / mebibyte, 1),
      contentMiB: round((cached?.content ?? 0) / mebibyte, 1),
      derivedMiB: round((cached?.derived ?? 0) / mebibyte, 1),
    };
  } finally {
    await host.close();
  }
}
