import { afterAll, describe, expect, it } from 'vitest';
import { createTiktokenTokenizer } from '../../src/budget/tiktoken-tokenizer.js';

const tokenizer = createTiktokenTokenizer();
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
});
