import fc from 'fast-check';

/**
 * Bodies for properties that must reach megabytes of text without pre-tokenizer boundaries, not
 * only short strings: a body is a short list of segments, each a run of one unit repeated (up to
 * several MB), pseudo-random base64 or CJK, ordinary lines, or a short arbitrary string. The
 * arbitrary yields the *description* (shrinks and prints in a line), `bodyOf` builds the text.
 */
export type Segment =
  | { readonly repeat: string; readonly chars: number }
  | { readonly base64: number; readonly seed: number }
  | { readonly cjk: number; readonly seed: number }
  | { readonly ordinary: number }
  | { readonly text: string };

/**
 * Units a run repeats: one letter (lower, upper), a digit, the base64 alphabet's symbols, CJK,
 * emoji, a combining mark, lone surrogates, NUL, whitespace, newlines, punctuation, pairs that
 * alternate classes.
 */
export const runUnits: readonly string[] = [
  'a',
  'Q',
  '7',
  '+/',
  '=',
  '漢',
  '🙂',
  'é',
  'e\u0301',
  '\uD800',
  '\uDFFF',
  '\u0000',
  ' ',
  '\n',
  '\r\n',
  '\t',
  '-_',
  'ab',
  'aB',
  '1a',
  '漢a',
  '<|endoftext|>',
];

/** Run lengths in characters: short, about a chunk (16k), and megabytes (1 MB up to `maxChars`). */
export function runChars(maxChars: number): fc.Arbitrary<number> {
  return fc.oneof(
    { arbitrary: fc.integer({ min: 1, max: 64 }), weight: 2 },
    { arbitrary: fc.integer({ min: 65, max: 40_000 }), weight: 2 },
    { arbitrary: fc.integer({ min: Math.min(1_000_000, maxChars), max: maxChars }), weight: 3 },
  );
}

export function segmentArbitrary(maxChars: number): fc.Arbitrary<Segment> {
  const chars = runChars(maxChars);
  const seed = fc.integer({ min: 0, max: 2 ** 31 - 1 });
  return fc.oneof(
    { arbitrary: fc.record({ repeat: fc.constantFrom(...runUnits), chars }), weight: 5 },
    { arbitrary: fc.record({ base64: chars, seed }), weight: 2 },
    { arbitrary: fc.record({ cjk: chars, seed }), weight: 2 },
    { arbitrary: fc.record({ ordinary: chars }), weight: 1 },
    {
      arbitrary: fc.record({
        text: fc.oneof(fc.string({ unit: 'binary', maxLength: 40 }), fc.string({ unit: 'grapheme' })),
      }),
      weight: 1,
    },
  );
}

/** One to `maxSegments` segments; `bodyOf` keeps the whole within `maxChars`. */
export function bodyArbitrary(maxChars: number, maxSegments = 3): fc.Arbitrary<readonly Segment[]> {
  return fc.array(segmentArbitrary(maxChars), { minLength: 1, maxLength: maxSegments });
}

/** The text a body describes, at most `maxChars` UTF-16 units (cut at the end, maybe mid-pair). */
export function bodyOf(segments: readonly Segment[], maxChars: number): string {
  const parts: string[] = [];
  let length = 0;
  for (const segment of segments) {
    if (length >= maxChars) break;
    const text = segmentText(segment, maxChars - length);
    parts.push(text);
    length += text.length;
  }
  return parts.join('');
}

/**
 * How many characters the longest run without spaces or newlines has (a repeated unit, base64,
 * CJK), once built: how far a property's generator reached.
 */
export function longestRunChars(segments: readonly Segment[], maxChars: number): number {
  const runs = segments.filter(
    (segment) =>
      ('repeat' in segment && !/[\s]/.test(segment.repeat)) || 'base64' in segment || 'cjk' in segment,
  );
  return Math.max(0, ...runs.map((segment) => segmentText(segment, maxChars).length));
}

// --- Internal helpers ---

function segmentText(segment: Segment, room: number): string {
  if ('repeat' in segment) {
    const unit = segment.repeat;
    return unit.repeat(Math.ceil(Math.min(segment.chars, room) / unit.length)).slice(0, room);
  }
  if ('base64' in segment) {
    const chars = Math.min(segment.base64, room);
    return Buffer.from(pseudoRandomBytes(Math.ceil((chars * 3) / 4) + 3, segment.seed))
      .toString('base64')
      .slice(0, chars);
  }
  if ('cjk' in segment) {
    const chars = Math.min(segment.cjk, room);
    const bytes = pseudoRandomBytes(2 * chars, segment.seed);
    const units = new Uint16Array(chars);
    // CJK Unified Ideographs U+4E00..U+9FFF: no space, no punctuation.
    for (let index = 0; index < chars; index++)
      units[index] =
        0x4e00 + ((((bytes[2 * index] as number) << 8) | (bytes[2 * index + 1] as number)) % 0x5200);
    return Buffer.from(units.buffer).toString('utf16le');
  }
  if ('ordinary' in segment) {
    const line =
      'The checkout service validates the cart, reserves stock and charges the card (see docs/checkout.md).\n';
    const chars = Math.min(segment.ordinary, room);
    return line.repeat(Math.ceil(chars / line.length)).slice(0, chars);
  }
  return segment.text.slice(0, room);
}

function pseudoRandomBytes(length: number, seed: number): Uint8Array {
  const bytes = new Uint8Array(length);
  let state = seed >>> 0 || 1;
  for (let index = 0; index < length; index++) {
    // xorshift32: a different sequence per seed, fast for megabytes.
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    bytes[index] = (state >>> 0) & 255;
  }
  return bytes;
}
