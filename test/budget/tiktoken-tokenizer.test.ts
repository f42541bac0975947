import { createRequire, syncBuiltinESMExports } from 'node:module';
import { afterAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { createTiktokenTokenizer } from '../../src/budget/tiktoken-tokenizer.js';

const tokenizer = createTiktokenTokenizer();
// The builtin's own exports object: a spy set on it reaches named imports once synced.
const crypto = createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto');
afterAll(() => tokenizer.dispose());

describe('createTiktokenTokenizer', () => {
  it('counts special-token strings inside content as plain text: 9 tokens, not the 4 of a special token', async () => {
    const text = 'before <|endoftext|> after';
    // o200k_base as plain text: "before", " <", "|", "end", "of", "text", "|", ">", " after" (9);
    // with special tokens allowed, <|endoftext|> would be one token and the whole 4.
    expect(await tokenizer.count(text)).toBe(9);
    expect(await tokenizer.encode(text)).toHaveLength(9);
    expect((await tokenizer.encodeWithin?.(text, 100, 'start'))?.tokens).toHaveLength(9);
    expect(tokenizer.decode(await tokenizer.encode(text))).toBe(text);
    // A long text goes through the chunked, cached path: plain text there too (2004 if special).
    expect(await tokenizer.count(`${'word '.repeat(2000)}${text}`)).toBe(2009);
  });

  it('decodes a prefix that ends inside a multi-byte character without garbage', async () => {
    const tokens = await tokenizer.encode('日本語のテキスト🎉🎉🎉');
    for (let length = 0; length <= tokens.length; length++) {
      expect(tokenizer.decode(tokens.subarray(0, length))).not.toContain('\uFFFD');
    }
  });

  it('shares one encoder: a second tokenizer of the same encoding is ready at once and counts the same', async () => {
    const second = createTiktokenTokenizer();
    expect(await second.count('hello world')).toBe(await tokenizer.count('hello world'));
    second.dispose();
    // Disposing one user must not free the encoder the other still uses.
    expect(await tokenizer.count('still works')).toBe(2);
  });

  it('a bounded encoding reports the whole count it knows, and hashes its text only when a text of that length was counted', async () => {
    const counting = createTiktokenTokenizer({ countCacheEntries: 1 });
    onTestFinished(() => counting.dispose());
    // The module imports createHash by name: the spy reaches it through the synced builtin.
    const createHash = vi.spyOn(crypto, 'createHash');
    syncBuiltinESMExports();
    onTestFinished(() => {
      createHash.mockRestore();
      syncBuiltinESMExports();
    });
    const body = 'The quick brown fox jumps over the lazy dog.\n'.repeat(100);
    const within = (text: string) => counting.encodeWithin?.(text, 10, 'start');

    // Nothing of its length was ever counted: no hash, no known count.
    expect((await within(body))?.knownCount).toBeUndefined();
    expect(createHash).not.toHaveBeenCalled();

    expect(await counting.count(body)).toBe(1000);
    createHash.mockClear();
    expect((await within(body))?.knownCount).toBe(1000);
    expect(createHash).toHaveBeenCalledTimes(1);

    // Another length evicts it (one entry): its length is forgotten with it.
    expect(await counting.count(`${body}!`)).toBe(1001);
    createHash.mockClear();
    expect((await within(body))?.knownCount).toBeUndefined();
    expect(createHash).not.toHaveBeenCalled();
  });
});
