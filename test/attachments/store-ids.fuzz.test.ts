import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { AttachmentStore } from '../../src/attachments/attachment-store.js';
import { MemoryAttachmentStore } from '../../src/attachments/memory-attachment-store.js';
import { SqliteAttachmentStore } from '../../src/attachments/sqlite-attachment-store.js';
import { ContextError } from '../../src/errors.js';
import { boundaryLimits } from '../../src/options/boundary-text.js';
import { PostgresAttachmentStore } from '../../src/postgres.js';
import type { Attachment, PinInput } from '../../src/types.js';
import { freshSchema, testDatabaseUrl } from '../replicas/support/postgres-test-database.js';
import { fuzzParameters } from '../support/fuzz-parameters.js';

/*
 * Ids that the memory store keeps apart, every store keeps apart, and the other way round: for
 * a family of near-equal ids (case variants, NFC/NFD/NFKC forms, trailing and leading spaces,
 * invisible characters, lengths at and past the byte limit, lone surrogates, NUL), pinned as a
 * scope id, a server name or a URI, the pins each store answers fall into the same groups (one
 * pin for ids it holds as one, by the id the store gives back), each listed as given, and what
 * the boundary rule refuses, every store refuses with the same code, field and limit.
 */

const seeds = [
  'crm',
  'c-42',
  'é',
  'Straße',
  'İstanbul',
  'ﬁle',
  'Σίσυφος',
  '한국어',
  'Å',
  'a b',
  '😀x',
  '漢字',
  'K',
  'ǅ',
];

/** Ways to make a near-equal of an id. */
const variants: Record<string, (text: string) => string> = {
  upper: (text) => text.toUpperCase(),
  lower: (text) => text.toLowerCase(),
  flipFirst: (text) => {
    const first = text.slice(0, 1);
    const flipped = first === first.toLowerCase() ? first.toUpperCase() : first.toLowerCase();
    return `${flipped}${text.slice(1)}`;
  },
  nfc: (text) => text.normalize('NFC'),
  nfd: (text) => text.normalize('NFD'),
  nfkc: (text) => text.normalize('NFKC'),
  nfkd: (text) => text.normalize('NFKD'),
  trailingSpace: (text) => `${text} `,
  trailingSpaces: (text) => `${text}  `,
  trailingTab: (text) => `${text}\t`,
  leadingSpace: (text) => ` ${text}`,
  trailingNbsp: (text) => `${text}\u00A0`,
  zeroWidth: (text) => `${text}\u200B`,
  joiner: (text) => `${text}\u200D`,
  bom: (text) => `\uFEFF${text}`,
  kelvin: (text) => text.replaceAll('K', '\u212A'),
  angstrom: (text) => text.replaceAll('Å', '\u212B'),
  loneHigh: (text) => `${text}\uD83D`,
  loneLow: (text) => `\uDE00${text}`,
  nul: (text) => `${text}\u0000`,
  empty: () => '',
  atLimit: (text) => padToBytes(text, 0),
  belowLimit: (text) => padToBytes(text, -1),
  pastLimit: (text) => padToBytes(text, 1),
  atLimitWide: (text) => padToBytes(text, 0, '漢'),
  pastLimitWide: (text) => padToBytes(text, 1, '😀'),
};

// The limit the current role pads to (an id's 256 bytes, a URI's 2048).
let padLimit: number = boundaryLimits.id;

/** `text` padded (with `filler`) to `padLimit + offset` bytes of UTF-8, or as near as the filler allows. */
function padToBytes(text: string, offset: number, filler = 'x'): string {
  const target = padLimit + offset;
  let padded = text;
  const fillerBytes = Buffer.byteLength(filler);
  while (Buffer.byteLength(padded) + fillerBytes <= target) padded += filler;
  while (Buffer.byteLength(padded) < target) padded += 'y';
  return padded;
}

const baseArbitrary = fc.oneof(
  { arbitrary: fc.constantFrom(...seeds), weight: 3 },
  { arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }), weight: 2 },
  { arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 8 }), weight: 1 },
);

/** A base id and near-equals of it (variants of variants too), in an order to pin them in. */
const familyArbitrary = fc
  .tuple(
    baseArbitrary,
    fc.array(fc.array(fc.constantFrom(...Object.keys(variants)), { minLength: 1, maxLength: 2 }), {
      minLength: 2,
      maxLength: 7,
    }),
  )
  .map(([base, chains]) => ({ base, chains }));

type Role = 'conversationId' | 'pipelineId' | 'server' | 'uri';

function familyOf(base: string, chains: readonly string[][], role: Role): string[] {
  padLimit = role === 'uri' ? boundaryLimits.uri : boundaryLimits.id;
  const start = role === 'uri' ? `x://${base}` : base;
  return [
    start,
    ...chains.map((chain) => chain.reduce((text, name) => variants[name]?.(text) ?? text, start)),
  ];
}

function pinOf(role: Role, value: string): PinInput {
  switch (role) {
    case 'conversationId':
      return { scope: { conversationId: value }, server: 's', uri: 'x://a' };
    case 'pipelineId':
      return { scope: { pipelineId: value }, server: 's', uri: 'x://a' };
    case 'server':
      return { scope: { pipelineId: 'ids' }, server: value, uri: 'x://a' };
    case 'uri':
      return { scope: { pipelineId: 'ids' }, server: 's', uri: value };
  }
}

/** The value a pin holds in `role`. */
function heldValue(role: Role, pin: Attachment): string | undefined {
  if (role === 'server') return pin.server;
  if (role === 'uri') return 'uri' in pin ? pin.uri : undefined;
  const scope: Record<string, string> = pin.scope;
  return scope[role];
}

type Outcome =
  | { readonly refused: { code: string; field: string | undefined; limit: unknown } }
  | { readonly group: number; readonly listedAsGiven: boolean };

/** Pins each value in turn, then lists them: which are refused, which share a pin. Unpins after. */
async function outcomesIn(store: AttachmentStore, role: Role, values: readonly string[]): Promise<Outcome[]> {
  const ids: (string | undefined)[] = [];
  const outcomes: Outcome[] = [];
  for (const value of values) {
    try {
      const pin = await store.pin(pinOf(role, value));
      const group = ids.indexOf(pin.id);
      ids.push(pin.id);
      outcomes.push({ group: group < 0 ? ids.length - 1 : group, listedAsGiven: false });
    } catch (error) {
      if (!ContextError.isInstance(error)) throw error;
      ids.push(undefined);
      outcomes.push({ refused: { code: error.code, field: error.field, limit: error.limit } });
    }
  }
  // Each pin is listed in its scope, with the value as it was given.
  for (const [index, value] of values.entries()) {
    const outcome = outcomes[index];
    if (!outcome || 'refused' in outcome) continue;
    const listed = (await store.list(pinOf(role, value).scope)).find((pin) => pin.id === ids[index]);
    outcomes[index] = {
      ...outcome,
      listedAsGiven: listed !== undefined && heldValue(role, listed) === value,
    };
  }
  for (const id of new Set(ids)) if (id !== undefined) await store.unpin(id);
  return outcomes;
}

function temporaryDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), 'mcp-context-ids-'));
  onTestFinished(() => rmSync(directory, { recursive: true, force: true }));
  return directory;
}

const rowStores: Record<string, () => Promise<AttachmentStore>> = {
  SqliteAttachmentStore: async () => new SqliteAttachmentStore(join(temporaryDirectory(), 'pins.sqlite')),
  PostgresAttachmentStore: async () =>
    PostgresAttachmentStore.open({ connectionString: testDatabaseUrl, schema: await freshSchema() }),
};

describe('fuzz: ids that the memory store keeps apart, every store keeps apart', () => {
  it.each(Object.keys(rowStores))(
    'property: %s groups near-equal ids, server names and URIs as the memory store does, and refuses the same ones with the same code',
    async (name) => {
      const store = await (rowStores[name] as () => Promise<AttachmentStore>)();
      onTestFinished(() => store.close?.());
      const memory = new MemoryAttachmentStore();
      let distinctGroups = 0;
      let refusals = 0;
      await fc.assert(
        fc.asyncProperty(
          familyArbitrary,
          fc.constantFrom<Role>('conversationId', 'pipelineId', 'server', 'uri'),
          async ({ base, chains }, role) => {
            const values = familyOf(base, chains, role);
            const expected = await outcomesIn(memory, role, values);
            expect(await outcomesIn(store, role, values), JSON.stringify(values)).toEqual(expected);
            // The memory store itself: one pin exactly for equal strings, each listed as given.
            for (const [index, outcome] of expected.entries()) {
              if ('refused' in outcome) {
                refusals++;
                continue;
              }
              expect(outcome.listedAsGiven).toBe(true);
              expect(outcome.group).toBe(values.indexOf(values[index] as string));
              if (outcome.group === index) distinctGroups++;
            }
          },
        ),
        fuzzParameters(60, { longShare: 1 / 20 }),
      );
      // The families had near-equals kept apart and ids refused, not only one of either.
      expect(distinctGroups).toBeGreaterThan(80);
      expect(refusals).toBeGreaterThan(10);
      if (store.listAll) expect(await store.listAll(10)).toEqual([]);
    },
    120_000,
  );
});
