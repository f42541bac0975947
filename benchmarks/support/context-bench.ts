import { composeContext } from '../../src/budget/compose-context.js';
import { createTiktokenTokenizer } from '../../src/budget/tiktoken-tokenizer.js';
import type { Tokenizer } from '../../src/budget/tokenizer.js';
import { prepareAttachment } from '../../src/convert/prepare-attachment.js';
import type { TruncationStrategyName } from '../../src/types.js';

const lines = [
  'function checkout(cart) {',
  '  return cart.items.map((item) => item.price * item.quantity);',
  '}',
  '// payments: retry with backoff, see /docs/payments.md',
  '/usr/local/bin/node server.js',
  '日本語のテキストと中文内容。',
  'The checkout service validates the cart, reserves stock and charges the card.',
  '',
  '  - name: Payments',
  '    cohesion: 81%',
  '🎉👩‍👩‍👧‍👦🚀 release notes',
  '<|endoftext|>',
];

/** Deterministic mixed text (code, YAML, prose, CJK, emoji, special tokens) of about `chars` characters. */
export function mixedText(chars: number, seed = 0): string {
  const parts: string[] = [];
  let length = 0;
  for (let index = seed; length < chars; index++) {
    const line = `${lines[(index * 7919) % lines.length]}${index % 13 === 0 ? '\n\n' : '\n'}`;
    parts.push(line);
    length += line.length;
  }
  return parts.join('');
}

/**
 * The convert step as the provider runs it (prepareAttachment: hash, convert, escape), then
 * composeContext: one turn for one resource.
 */
export async function fitResource(
  text: string,
  tokenizer: Tokenizer,
  maxTokens: number,
  truncation: TruncationStrategyName = 'head',
) {
  const { composable } = prepareAttachment(
    { scope: 'pipeline', server: 'bench', uri: 'bench://resource' },
    { contents: [{ uri: 'bench://resource', mimeType: 'text/plain', text }] },
  );
  return composeContext([composable], tokenizer, {
    maxTokens,
    minTokens: 64,
    strategy: 'fair',
    renderOrder: [0],
    truncation,
  });
}

/** `run` with a new tokenizer: its count caches start empty. Disposed after. */
export async function withTokenizer<T>(run: (tokenizer: Tokenizer) => Promise<T>): Promise<T> {
  const tokenizer = createTiktokenTokenizer();
  try {
    return await run(tokenizer);
  } finally {
    tokenizer.dispose();
  }
}

/**
 * `run` with the o200k tables loaded for its whole duration: the vocabulary (read once per
 * process, a few hundred ms) and, for a tokenizer that encodes with it, tiktoken's WASM encoder
 * (shared while any tokenizer uses it; 160–350 ms to load). A host pays these once at start-up,
 * not per turn. Holding them lets each measured run make a fresh tokenizer (empty count and
 * piece caches) without measuring the load.
 */
export async function withEncoderLoaded<T>(run: () => Promise<T>): Promise<T> {
  return withTokenizer(() => run());
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

export const round = (value: number, digits = 2) => Number(value.toFixed(digits));
