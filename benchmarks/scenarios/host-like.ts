import { get_encoding } from 'tiktoken';
import { type BenchEra, withEraSuffix } from '../support/bench-era.js';
import { bodyWords } from '../support/bulk-server.js';
import { type ChatHost, type ChatTurn, floorHost, libraryHost } from '../support/chat-hosts.js';
import { withEncoderLoaded } from '../support/context-bench.js';
import { collectGarbage, percentile, round } from '../support/measure.js';
import type { Figures, ReadmeRow } from '../support/scenario.js';
import { startSteadyChatServer } from '../support/steady-chat-server.js';

const maxTokens = 32_000;
const sizes = { pins: 20, pinBytes: 32 * 1024, notes: 5, noteBytes: 8 * 1024, attachmentBytes: 16 * 1024 };
/** A first turn's conversation pins 5 notes of this size (issue 38.2's first turns). */
const firstNoteBytes = 1024;
/** The steady chat's conversations: one per turn in flight at 16. */
const steadyConversations = 16;
const inFlights = [1, 16] as const;
const targets = { firstOverFloor: 1.2, relevantOverHead: 1.5, heapSlackBytes: 4 * 1024 };
const kibibyte = 1024;

/**
 * A host's turns as a host runs them (issue 38.6), side by side in one process: the library with
 * `truncation: 'head'`, the library with `'relevant'`, and the floor, a host that does only what
 * cannot be avoided: it reads the bytes that are new this turn and counts their tokens with
 * tiktoken's own encoder (see floorHost). One server over Streamable HTTP on 127.0.0.1: 20 pipeline
 * pins × 32 KB; budget 32,000 tokens, so every pin is cut. Every turn brings new message text (the
 * query `relevant` scores) and a new 16 KB attachment.
 *
 * - First turns: conversations no host has seen, each with 5 notes × 1 KB pinned before its first
 *   turn (outside the clock); the pipeline's pins were read by earlier conversations. The floor
 *   reads the 5 notes and the attachment.
 * - Steady chat: 16 conversations (5 notes × 8 KB each) past their first turn; the floor reads
 *   the attachment.
 *
 * Each phase runs at 1 turn in flight and at 16 (16 workers, each its own conversations), in
 * windows; in each window every host runs the same turns (text, attachment, conversation), in a
 * new random order of hosts. Figures: p50 and p99 of each host, each library host's ratio to the
 * floor's (p50 over p50, p99 over p99), `relevant` over `head`, and turns per second (turns over
 * the wall time of their waves). Memory: every block of first turns runs between full GCs, and a
 * host's heap growth over its blocks, over its first turns, is its heap per conversation (it
 * includes its pins, kept turns and what its caches took in, the turn's attachment included). Every
 * library turn's trace is checked against the budget, and one context in four at 1 in flight
 * counted whole by tiktoken outside the clock (`countedWhole`): `over` must stay 0. Listener warnings
 * (MaxListenersExceededWarning) printed during the run are counted.
 *
 * Targets (issue 38): a first turn with `head` ≤ 1.2× the floor at p50 and p99 at 1 in flight;
 * `relevant` ≤ 1.5× `head` on steady turns at p50 and p99, 1 and 16 in flight; heap per
 * conversation ≤ 2× its pinned content + 4 KiB; no listener warning; 0 over budget.
 */
export async function run(options: { quick: boolean }): Promise<Figures> {
  const figures = await runOn('2025-11-25', options);
  const modern = await runOn('2026-07-28', options);
  return { ...figures, era: '2025-11-25', ...withEraSuffix(modern) };
}

export const readme: ReadmeRow = {
  what:
    'a host’s turns over Streamable HTTP (20 pins × 32 KB, 32k budget, new text and a new 16 KB attachment every turn) ' +
    'against the floor (read only the new bytes and count their tokens), same run: first turns of new conversations ' +
    '(5 notes × 1 KB), steady chat (5 notes × 8 KB), `head` and `relevant`',
  result: (figures) =>
    `first turn **${figures['firstHeadOverFloorP50@1']}× / ${figures['firstHeadOverFloorP99@1']}×** the floor at p50/p99 ` +
    `(${figures['firstHeadP50Ms@1']} vs ${figures['firstFloorP50Ms@1']} ms; relevant ${figures['firstRelevantOverFloorP50@1']}×); ` +
    `steady ${figures['steadyHeadOverFloorP50@1']}× / ${figures['steadyHeadOverFloorP99@1']}× ` +
    `(relevant ${figures['steadyRelevantOverFloorP50@1']}× / ${figures['steadyRelevantOverFloorP99@1']}×; ` +
    `relevant/head at worst **${figures.relevantOverHead}×**); turns/s at 1 and 16 in flight: first ` +
    `${figures['firstHeadTurnsPerSecond@1']} / ${figures['firstHeadTurnsPerSecond@16']} (floor ` +
    `${figures['firstFloorTurnsPerSecond@1']} / ${figures['firstFloorTurnsPerSecond@16']}), steady ` +
    `${figures['steadyHeadTurnsPerSecond@1']} / ${figures['steadyHeadTurnsPerSecond@16']} (relevant ` +
    `${figures['steadyRelevantTurnsPerSecond@1']} / ${figures['steadyRelevantTurnsPerSecond@16']}, floor ` +
    `${figures['steadyFloorTurnsPerSecond@1']} / ${figures['steadyFloorTurnsPerSecond@16']}); heap ` +
    `**${figures.headHeapKiBPerConversation} KiB** per conversation (${figures.conversations} conversations, ` +
    `${figures.pinnedKiBPerConversation} KiB pinned each); ${figures.listenerWarnings} listener warnings; ${figures.over} over budget ` +
    `(all on 2025-11-25; on 2026-07-28: first turn ${figures['firstHeadOverFloorP50@1@2026-07-28'] ?? '–'}× / ` +
    `${figures['firstHeadOverFloorP99@1@2026-07-28'] ?? '–'}×, relevant/head at worst ${figures['relevantOverHead@2026-07-28'] ?? '–'}×, ` +
    `${figures['over@2026-07-28'] ?? '–'} over)`,
  target: 'first turn ≤ 1.2× floor; relevant ≤ 1.5× head; heap ≤ 2× pinned + 4 KiB',
};

// --- Internal helpers ---

/** The scenario on a server of one era (the whole of it: hosts, windows, figures, targets). */
async function runOn(era: BenchEra, options: { quick: boolean }): Promise<Figures> {
  const windows = options.quick ? 1 : 6;
  // Turns per host and window at 1 in flight; at 16, twice as many (once as many with --quick).
  const turnsPerWindow = { steady: options.quick ? 16 : 48, first: options.quick ? 16 : 100 };
  const atSixteen = options.quick ? 1 : 2;
  const server = await startSteadyChatServer(sizes, era);
  const encoder = get_encoding('o200k_base');
  const hosts: ChatHost[] = [];
  let warnings = 0;
  const countWarning = (warning: Error) => {
    if (warning.name === 'MaxListenersExceededWarning') warnings++;
  };
  process.on('warning', countWarning);
  try {
    hosts.push(
      await libraryHost('head', server, maxTokens),
      await libraryHost('relevant', server, maxTokens),
      await floorHost(server, encoder),
    );
    return await withEncoderLoaded(async () => {
      const turns = new TurnMaker(server);
      let over = 0;
      let taken = 0;
      // Counting a whole context costs more than a turn: one library turn in four at 1 in flight,
      // after its wave (the wave's wall time is the turns').
      const toCount: string[] = [];
      const take = async (host: ChatHost, turn: ChatTurn, check: boolean): Promise<number> => {
        const started = performance.now();
        const context = await host.turn(turn);
        const ms = performance.now() - started;
        if (context && context.usedTokens > maxTokens) over++;
        if (context && check && taken++ % 4 === 0)
          toCount.push(context.blocks.map((block) => block.text).join(''));
        return ms;
      };
      let countedWhole = 0;
      const countWhole = () => {
        for (const text of toCount.splice(0)) {
          countedWhole++;
          if (encoder.encode_ordinary(text).length > maxTokens) over++;
        }
      };
      const steadyTurns = (count: number) =>
        Array.from({ length: count }, (_, index) => turns.next(`steady-${index % steadyConversations}`));
      // Every steady conversation's first turn, and the JIT warmed on every path, unmeasured.
      for (const host of hosts) {
        for (let index = 0; index < steadyConversations; index++)
          await host.open(`steady-${index}`, server.notes(`steady-${index}`));
      }
      const warmup = [...steadyTurns(steadyConversations), ...steadyTurns(options.quick ? 0 : 32)];
      for (const host of hosts) {
        await wave(warmup, 1, (turn) => take(host, turn, false));
        await wave(steadyTurns(options.quick ? 16 : 32), 16, (turn) => take(host, turn, false));
      }
      // And first turns: what the first of them pays once (renderings of the pins at a first
      // turn's shares, code) is not any conversation's.
      const warmFirst = Array.from({ length: 16 }, () => turns.first());
      for (const host of hosts) {
        for (const turn of warmFirst) await host.open(turn.conversation, turn.newUris.slice(0, -1));
        await wave(warmFirst, 1, (turn) => take(host, turn, false));
      }

      const results = new Results();
      const heap = new Map(hosts.map((host) => [host.name, 0]));
      let firstTurns = 0;
      for (let window = 0; window < windows; window++) {
        for (const inFlight of inFlights) {
          // First turns: the same new conversations for every host, each host's block between full GCs.
          const first = Array.from({ length: turnsPerWindow.first * (inFlight === 1 ? 1 : atSixteen) }, () =>
            turns.first(),
          );
          firstTurns += first.length;
          for (const host of shuffled(hosts)) {
            collectGarbage();
            const before = process.memoryUsage().heapUsed;
            for (const turn of first) await host.open(turn.conversation, turn.newUris.slice(0, -1));
            results.add(
              'first',
              host.name,
              inFlight,
              await wave(first, inFlight, (turn) => take(host, turn, inFlight === 1)),
            );
            countWhole();
            collectGarbage();
            heap.set(host.name, (heap.get(host.name) ?? 0) + process.memoryUsage().heapUsed - before);
          }
          // Steady chat: the same turns for every host.
          const steady = steadyTurns(turnsPerWindow.steady * (inFlight === 1 ? 1 : atSixteen));
          for (const host of shuffled(hosts)) {
            results.add(
              'steady',
              host.name,
              inFlight,
              await wave(steady, inFlight, (turn) => take(host, turn, inFlight === 1)),
            );
            countWhole();
          }
        }
      }

      const figures = results.figures();
      const perConversation = (name: ChatHost['name']) => (heap.get(name) ?? 0) / (firstTurns / hosts.length);
      const pinnedBytes = sizes.notes * firstNoteBytes;
      for (const host of hosts) {
        figures[`${host.name}HeapKiBPerConversation`] = round(perConversation(host.name) / kibibyte, 1);
        const cached = host.cacheBytes();
        if (cached) {
          figures[`${host.name}ContentMiB`] = round(cached.content / kibibyte / kibibyte, 1);
          figures[`${host.name}DerivedMiB`] = round(cached.derived / kibibyte / kibibyte, 1);
        }
      }
      const firstOverFloor = Math.max(
        Number(figures['firstHeadOverFloorP50@1']),
        Number(figures['firstHeadOverFloorP99@1']),
      );
      const relevantOverHead = Math.max(
        ...inFlights.flatMap((inFlight) =>
          [50, 99].map((p) => Number(figures[`steadyRelevantOverHeadP${p}@${inFlight}`])),
        ),
      );
      const heapPerConversation = Math.max(perConversation('head'), perConversation('relevant'));
      return {
        ratio: round(firstOverFloor, 2),
        relevantOverHead: round(relevantOverHead, 2),
        heapKiBPerConversation: round(heapPerConversation / kibibyte, 1),
        target:
          `first turn (head) <= ${targets.firstOverFloor}x floor at p50 and p99; relevant <= ${targets.relevantOverHead}x head ` +
          '(steady, p50 and p99, 1 and 16 in flight); heap per conversation <= 2x pinned + 4 KiB; 0 listener warnings; 0 over',
        met:
          firstOverFloor <= targets.firstOverFloor &&
          relevantOverHead <= targets.relevantOverHead &&
          heapPerConversation <= 2 * pinnedBytes + targets.heapSlackBytes &&
          warnings === 0 &&
          over === 0,
        over,
        countedWhole,
        listenerWarnings: warnings,
        conversations: firstTurns / hosts.length,
        pinnedKiBPerConversation: pinnedBytes / kibibyte,
        ...figures,
        maxTokens,
      };
    });
  } finally {
    process.off('warning', countWarning);
    for (const host of hosts) await host.close();
    encoder.free();
    await server.close();
  }
}

// A host's question: the bodies' own words (so `relevant` has terms to score) and a few of its own.
const vocabulary = [...bodyWords.filter((word) => word !== 'the'), 'why', 'does', 'fail', 'when'];

/** New turns: message text from a fixed random sequence, an attachment no turn has read. */
class TurnMaker {
  #random = 12345;
  #turns = 0;
  #conversations = 0;
  readonly #server: Awaited<ReturnType<typeof startSteadyChatServer>>;

  constructor(server: Awaited<ReturnType<typeof startSteadyChatServer>>) {
    this.#server = server;
  }

  /** A turn of `conversation`, past its first. */
  next(conversation: string): ChatTurn {
    const attachment = this.#server.attachment(`turn-${this.#turns++}`);
    return { conversation, text: this.#text(), attachment, newUris: [attachment] };
  }

  /** The first turn of a new conversation: its notes are new too (they come first in newUris). */
  first(): ChatTurn {
    const conversation = `first-${this.#conversations++}`;
    const turn = this.next(conversation);
    return { ...turn, newUris: [...this.#server.notes(conversation, firstNoteBytes), turn.attachment] };
  }

  #text(): string {
    const next = () => {
      this.#random = (this.#random * 1103515245 + 12345) % 2147483648;
      return this.#random;
    };
    return Array.from({ length: 6 + (next() % 10) }, () => vocabulary[next() % vocabulary.length]).join(' ');
  }
}

/** What one host's wave of turns measured. */
interface Wave {
  readonly times: readonly number[];
  readonly seconds: number;
}

/**
 * `turns` through `take` at `inFlight`: worker w takes turns w, w + inFlight, … one after another
 * (the steady turns' conversations follow the index, so no conversation has two turns in flight).
 */
async function wave(
  turns: readonly ChatTurn[],
  inFlight: number,
  take: (turn: ChatTurn) => Promise<number>,
): Promise<Wave> {
  const times: number[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async (_, worker) => {
      for (let index = worker; index < turns.length; index += inFlight)
        times.push(await take(turns[index] as ChatTurn));
    }),
  );
  return { times, seconds: (performance.now() - started) / 1000 };
}

/** Times and wall seconds by phase, host and turns in flight, and the figures made of them. */
class Results {
  readonly #waves = new Map<string, { times: number[]; seconds: number }>();

  add(phase: 'first' | 'steady', host: string, inFlight: number, { times, seconds }: Wave): void {
    const key = `${phase}/${host}/${inFlight}`;
    const sum = this.#waves.get(key) ?? { times: [], seconds: 0 };
    sum.times.push(...times);
    sum.seconds += seconds;
    this.#waves.set(key, sum);
  }

  figures(): Figures {
    const figures: Figures = {};
    const at = (phase: string, host: string, inFlight: number, p: number) =>
      percentile(this.#waves.get(`${phase}/${host}/${inFlight}`)?.times ?? [], p);
    for (const phase of ['first', 'steady'] as const) {
      for (const inFlight of inFlights) {
        for (const host of ['head', 'relevant', 'floor'] as const) {
          const name = `${phase}${capitalized(host)}`;
          const wave = this.#waves.get(`${phase}/${host}/${inFlight}`);
          for (const p of [50, 99])
            figures[`${name}P${p}Ms@${inFlight}`] = round(at(phase, host, inFlight, p), 1);
          figures[`${name}TurnsPerSecond@${inFlight}`] = round(
            (wave?.times.length ?? 0) / (wave?.seconds ?? 1),
            0,
          );
        }
        for (const p of [50, 99]) {
          const floor = at(phase, 'floor', inFlight, p);
          const head = at(phase, 'head', inFlight, p);
          const relevant = at(phase, 'relevant', inFlight, p);
          figures[`${phase}HeadOverFloorP${p}@${inFlight}`] = round(head / floor, 2);
          figures[`${phase}RelevantOverFloorP${p}@${inFlight}`] = round(relevant / floor, 2);
          figures[`${phase}RelevantOverHeadP${p}@${inFlight}`] = round(relevant / head, 2);
        }
        figures[`${phase}Turns@${inFlight}`] =
          this.#waves.get(`${phase}/head/${inFlight}`)?.times.length ?? 0;
      }
    }
    return figures;
  }
}

function capitalized(word: string): string {
  return `${word.slice(0, 1).toUpperCase()}${word.slice(1)}`;
}

/** A copy of `values` in a random order (Fisher–Yates). */
function shuffled<T>(values: readonly T[]): T[] {
  const copy = [...values];
  for (let index = copy.length - 1; index > 0; index--) {
    const other = Math.floor(Math.random() * (index + 1));
    [copy[index], copy[other]] = [copy[other] as T, copy[index] as T];
  }
  return copy;
}
