import { describe, expect, it } from 'vitest';
import { pinnedPrefix } from '../../src/budget/truncate/pinned-prefix.js';
import { truncationRequest } from './truncation-request.js';

describe('pinnedPrefix: the leading lines every cut keeps, while they take at most half the share', () => {
  const body = 'id,name\n1,a\n2,b\n';

  it('nothing pinned: empty', async () => {
    expect(await pinnedPrefix(truncationRequest(body, { contentTokens: 100 }))).toStrictEqual({
      text: '',
      tokens: 0,
    });
  });

  it('a header of exactly half the share is pinned', async () => {
    expect(await pinnedPrefix(truncationRequest(body, { pinnedChars: 8, contentTokens: 16 }))).toStrictEqual({
      text: 'id,name\n',
      tokens: 8,
    });
  });

  it('a header of more than half the share is not', async () => {
    expect(await pinnedPrefix(truncationRequest(body, { pinnedChars: 8, contentTokens: 15 }))).toStrictEqual({
      text: '',
      tokens: 0,
    });
  });
});
