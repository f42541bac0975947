import { get_encoding } from 'tiktoken';
import {
  AccessPolicy,
  createTiktokenTokenizer,
  McpServerRegistry,
  MemoryAttachmentStore,
  ResourceContextProvider,
  type TruncationStrategyName,
} from '../../src/index.js';
import { withEncoderLoaded } from '../support/context-bench.js';
import { percentile, round } from '../support/measure.js';
import type { Figures, ReadmeRow } from '../support/scenario.js';
import { startSteadyChatServer } from '../support/steady-chat-server.js';

const maxTokens = 32_000;
const sizes = { pins: 20, pinBytes: 32 * 1024, notes: 5, noteBytes: 8 * 1024, attachmentBytes: 16 * 1024 };
const conversations = 16;
const target = 1.5;
const vocabulary = [
  'checkout',
  'cart',
  'payment',
  'service',
  'validates',
  'reserves',
  'stock',
  'before',
  'charging',
  'customer',
  'order',
  'retries',
  'webhook',
  'idempotent',
  'ledger',
  'refund',
  'invoice',
  'tax',
  'shipping',
  'why',
  'does',
  'fail',
  'when',
];

/**
 * `truncation: 'relevant'` beside `head` on the same turns (issue 38.1): a host's steady chat over
 * Streamable HTTP on 127.0.0.1 — 20 pipeline pins × 32 KB, 5 notes × 8 KB pinned to each of 16
 * conversations, and every turn new message text (the query `relevant` scores) and a new 16 KB
 * message attachment; budget 32,000 tokens, so every body is cut. One provider per strategy, each
 * with its own registry (session) and tokenizer, over the same server; windows of turns take turns
 * between them (in alternating order), at 1 turn in flight and at 16 (one per conversation). Every
 * conversation has had a turn before anything is measured. Every turn at 1 in flight is counted
 * whole by tiktoken's own encoder outside the clock, and every trace's usedTokens checked: `over`
 * must stay 0. `ratio` = the larger of relevant / head at p50 and at p99, at 1 and at 16 in flight.
 */
export async function run(options: { quick: boolean }): Promise<Figures> {
  const windows = options.quick ? 2 : 6;
  const turnsPerWindow = options.quick ? 16 : 48;
  const server = await startSteadyChatServer(sizes);
  const encoder = get_encoding('o200k_base');
  const hosts = await Promise.all((['relevant', 'head'] as const).map((strategy) => host(strategy, server)));
  let over = 0;
  let random = 12345;
  const next = () => {
    random = (random * 1103515245 + 12345) % 2147483648;
    return random;
  };
  const messageText = () =>
    Array.from({ length: 6 + (next() % 10) }, () => vocabulary[next() % vocabulary.length]).join(' ');
  try {
    return await withEncoderLoaded(async () => {
      let turn = 0;
      const oneTurn = async (h: Host, conversation: number, check: boolean): Promise<number> => {
        const key = `${h.strategy}-${turn++}`;
        const text = messageText();
        const started = performance.now();
        const { blocks, trace } = await h.provider.provide({
          pipelineId: 'chat',
          conversationId: `c-${conversation}`,
          message: { text, attachments: [{ server: 'chat', uri: server.attachment(key) }] },
        });
        const ms = performance.now() - started;
        if (trace.budget.usedTokens > maxTokens) over++;
        if (check && encoder.encode_ordinary(blocks.map((block) => block.text).join('')).length > maxTokens)
          over++;
        return ms;
      };
      const wave = async (h: Host, inFlight: number, turns: number, check: boolean): Promise<number[]> => {
        const times: number[] = [];
        let started = 0;
        await Promise.all(
          Array.from({ length: inFlight }, async (_, worker) => {
            while (started < turns) {
              started++;
              times.push(await oneTurn(h, worker % conversations, check));
            }
          }),
        );
        return times;
      };
      // Every conversation's first turn, and the JIT warmed on both paths.
      for (const h of hosts) {
        for (let conversation = 0; conversation < conversations; conversation++)
          await oneTurn(h, conversation, false);
        await wave(h, 1, 20, false);
        await wave(h, 16, 32, false);
      }
      const figures: Figures = {};
      let worst = 0;
      for (const inFlight of [1, 16]) {
        const times = new Map(hosts.map((h) => [h.strategy, [] as number[]]));
        for (let window = 0; window < windows; window++) {
          const order = window % 2 === 0 ? hosts : [...hosts].reverse();
          for (const h of order)
            times
              .get(h.strategy)
              ?.push(...(await wave(h, inFlight, turnsPerWindow * (inFlight === 1 ? 1 : 2), inFlight === 1)));
        }
        const at = (strategy: TruncationStrategyName, p: number) => percentile(times.get(strategy) ?? [], p);
        for (const p of [50, 99]) {
          const relevant = at('relevant', p);
          const head = at('head', p);
          figures[`relevantP${p}Ms@${inFlight}`] = round(relevant, 1);
          figures[`headP${p}Ms@${inFlight}`] = round(head, 1);
          figures[`ratioP${p}@${inFlight}`] = round(relevant / head, 2);
          worst = Math.max(worst, relevant / head);
        }
        figures[`turns@${inFlight}`] = times.get('relevant')?.length ?? 0;
      }
      return {
        ratio: round(worst, 2),
        target: `<= ${target} (relevant / head, p50 and p99, 1 and 16 in flight)`,
        met: worst <= target && over === 0,
        over,
        ...figures,
        maxTokens,
      };
    });
  } finally {
    encoder.free();
    for (const h of hosts) await h.close();
    await server.close();
  }
}

export const readme: ReadmeRow = {
  what: '`relevant` beside `head`, steady chat over Streamable HTTP (20 pins × 32 KB, 5 notes × 8 KB, a new 16 KB attachment and new text every turn, 32k budget)',
  result: (figures) =>
    `**${figures.ratio}×** at worst; p50 ${figures['relevantP50Ms@1']} vs ${figures['headP50Ms@1']} ms, ` +
    `p99 ${figures['relevantP99Ms@1']} vs ${figures['headP99Ms@1']} ms; 16 in flight p50 ${figures['relevantP50Ms@16']} vs ` +
    `${figures['headP50Ms@16']} ms, p99 ${figures['relevantP99Ms@16']} vs ${figures['headP99Ms@16']} ms; ${figures.over} over budget`,
  target: '≤ 1.5× head',
};

// --- Internal helpers ---

interface Host {
  readonly strategy: TruncationStrategyName;
  readonly provider: ResourceContextProvider;
  close(): Promise<void>;
}

async function host(
  strategy: TruncationStrategyName,
  server: Awaited<ReturnType<typeof startSteadyChatServer>>,
): Promise<Host> {
  const tokenizer = createTiktokenTokenizer();
  const servers = new McpServerRegistry({ mcpServers: { chat: { type: 'http', url: server.url } } });
  const attachments = new MemoryAttachmentStore();
  for (const uri of server.pins)
    await attachments.pin({ scope: { pipelineId: 'chat' }, server: 'chat', uri });
  for (let conversation = 0; conversation < conversations; conversation++)
    for (const uri of server.notes(conversation))
      await attachments.pin({ scope: { conversationId: `c-${conversation}` }, server: 'chat', uri });
  const provider = new ResourceContextProvider({
    servers,
    attachments,
    policy: new AccessPolicy({ bindings: { chat: { servers: ['chat'] } } }),
    tokenizer,
    budget: { maxTokens, truncation: strategy },
    readTimeoutMs: 120_000,
    turnDeadlineMs: 600_000,
  });
  return {
    strategy,
    provider,
    close: async () => {
      provider.dispose();
      await servers.close();
      tokenizer.dispose();
    },
  };
}
