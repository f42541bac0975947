import { afterAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { OrdinaryEncoder } from '../../src/budget/encode-ordinary.js';
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

  it.each([
    // Matched by a prefix followed by "-" or ".", case-insensitive, after a leading "openai/".
    ['gpt-4.0', 'cl100k_base'],
    ['GPT-4-Turbo', 'cl100k_base'],
    ['openai/gpt-4-turbo', 'cl100k_base'],
    ['text-embedding-3-small', 'cl100k_base'],
    ['text-embedding-ada-002', 'cl100k_base'],
    ['gpt-4.5-preview', 'o200k_base'],
    // Only a leading "openai/" is a vendor prefix: taken out of the middle, this would read gpt-4-turbo.
    ['gpt-4openai/-turbo', 'o200k_base'],
  ])('%s → %s', (model, encoding) => {
    expect(encodingForModel(model)).toBe(encoding);
  });

  it('refuses an empty model name', () => {
    expect(() => encodingForModel('')).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTION', field: 'model' }),
    );
    expect(() => encodingForModel('')).toThrow('model must be a non-empty string');
  });

  it('refuses a model name that is not a string (from JavaScript) with the same error', () => {
    expect(() => encodingForModel(42 as unknown as string)).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTION', field: 'model', value: 42 }),
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

  it('caches counts by content: a repeated count of a large text encodes nothing, another text of the same length is encoded', async () => {
    // A spy on the real encoder (it calls through): how many times tiktoken was asked to encode.
    const encodeOrdinary = vi.spyOn(OrdinaryEncoder.prototype, 'encode');
    onTestFinished(() => encodeOrdinary.mockRestore());
    const text = 'The quick brown fox jumps over the lazy dog.\n'.repeat(20_000);
    expect(await cl100k.count(text)).toBe(200_000);
    expect(encodeOrdinary).toHaveBeenCalled();

    encodeOrdinary.mockClear();
    expect(await cl100k.count(text)).toBe(200_000);
    expect(encodeOrdinary).not.toHaveBeenCalled();

    const sameLength = `${text.slice(0, -1)}!`;
    expect(await cl100k.count(sameLength)).toBe(200_000);
    expect(encodeOrdinary).toHaveBeenCalled();
  });

  it('caches counts of short texts by the text itself', async () => {
    const encodeOrdinary = vi.spyOn(OrdinaryEncoder.prototype, 'encode');
    onTestFinished(() => encodeOrdinary.mockRestore());
    expect(await cl100k.count('a short frame header')).toBe(4);
    expect(encodeOrdinary).toHaveBeenCalledTimes(1);
    expect(await cl100k.count('a short frame header')).toBe(4);
    expect(await cl100k.count('a short frame footer')).toBe(4);
    expect(encodeOrdinary).toHaveBeenCalledTimes(2);
  });
});
