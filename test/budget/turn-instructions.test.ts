import { describe, expect, it } from 'vitest';
import { collectServerInstructions } from '../../src/budget/collect-server-instructions.js';
import { collectTurnInstructions } from '../../src/budget/turn-instructions.js';
import { createCharTokenizer } from './char-tokenizer.js';

describe('collectTurnInstructions', () => {
  const { tokenizer } = createCharTokenizer({ bounded: true, prefix: true });
  const asked: string[] = [];
  const servers = {
    getInstructions: async (server: string) => {
      asked.push(server);
      return 'Use the docs server for product questions. '.repeat(20);
    },
  };
  const sectionWithin = async (maxTokens: number) => {
    const section = await collectServerInstructions(servers, ['docs'], { tokenizer, maxTokens });
    return { text: section.text, tokens: await tokenizer.count(section.text), entries: section.entries };
  };

  it('takes at most a quarter of the turn’s budget, below its own maxTokens', async () => {
    const expected = await sectionWithin(400);
    // The preamble, the frame and the marker with a cut of the instructions: 396 characters.
    expect(expected.tokens).toBe(396);
    expect(await collectTurnInstructions(servers, ['docs'], tokenizer, 1000, 1600)).toEqual(expected);
  });

  it('takes at most its own maxTokens, below a quarter of the turn', async () => {
    expect(await collectTurnInstructions(servers, ['docs'], tokenizer, 300, 1600)).toEqual(
      await sectionWithin(300),
    );
  });

  it('is empty, asking no server, without servers or when a quarter of the turn is under a token', async () => {
    asked.length = 0;
    const empty = { text: '', tokens: 0, entries: [] };
    expect(await collectTurnInstructions(servers, [], tokenizer, 1000, 1600)).toEqual(empty);
    expect(await collectTurnInstructions(servers, ['docs'], tokenizer, 1000, 3)).toEqual(empty);
    expect(asked).toEqual([]);
  });
});
