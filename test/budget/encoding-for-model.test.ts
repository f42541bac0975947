import { afterAll, describe, expect, it } from 'vitest';
import { encodingForModel } from '../../src/budget/encoding-for-model.js';
import { createTiktokenTokenizer } from '../../src/budget/tiktoken-tokenizer.js';

describe('encodingForModel', () => {
  it.each([
    ['gpt-4o-mini', 'o200k_base'],
    ['gpt-4.1', 'o200k_base'],
    ['o3-mini', 'o200k_base'],
    ['gpt-4-turbo', 'cl100k_base'],
    ['gpt-3.5-turbo', 'cl100k_base'],
    ['claude-sonnet-4', 'o200k_base'],
  ])('%s → %s', (model, encoding) => {
    expect(encodingForModel(model)).toBe(encoding);
  });

  it('refuses an empty model name', () => {
    expect(() => encodingForModel('')).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTION', field: 'model' }),
    );
  });
});

describe('createTiktokenTokenizer by model', () => {
  const cl100k = createTiktokenTokenizer({ model: 'gpt-4-turbo' });
  afterAll(() => cl100k.dispose());

  it('selects cl100k_base for a gpt-4 model name', async () => {
    expect(cl100k.name).toBe('tiktoken:cl100k_base');
    expect(await cl100k.count('hello world')).toBe(2);
  });

  it('caches counts by content: a repeated count of a large text is immediate and equal', async () => {
    const text = 'The quick brown fox jumps over the lazy dog.\n'.repeat(20_000);
    const first = await cl100k.count(text);
    const started = performance.now();
    expect(await cl100k.count(text)).toBe(first);
    expect(performance.now() - started).toBeLessThan(first / 1000);
  });
});
