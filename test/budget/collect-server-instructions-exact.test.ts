import { describe, expect, it } from 'vitest';
import {
  collectServerInstructions,
  type InstructionSource,
  serverInstructionsPreamble,
} from '../../src/budget/collect-server-instructions.js';
import type { Tokenizer } from '../../src/budget/tokenizer.js';
import { ContextError } from '../../src/errors.js';
import { createCharTokenizer } from './char-tokenizer.js';

// One token per character: every count below can be read off the text.
const { tokenizer } = createCharTokenizer({ bounded: true, prefix: true });
const length = (text: string) => Array.from(text).length;
const preamble = length(serverInstructionsPreamble);

/** What the model sees for one server: its frame, exactly. */
const frameOf = (server: string, body: string) =>
  `<mcp-server-instructions server="${server}">\n${body}\n</mcp-server-instructions>\n\n`;
const markerOf = (omitted: number, total: number) =>
  `\n[instructions truncated: ${omitted} of ${total} tokens omitted]`;

/** Servers by name: their instructions, none, or a throw. */
function sourceOf(instructions: Record<string, string | undefined | Error>): InstructionSource {
  return {
    getInstructions: async (server) => {
      const answer = instructions[server];
      if (answer instanceof Error) throw answer;
      return answer;
    },
  };
}

const lines = (count: number, prefix: string) =>
  Array.from({ length: count }, (_, index) => `${prefix} rule ${index + 1}.`).join('\n');

describe('collectServerInstructions, exactly (one token per character)', () => {
  it('frames each server in the order named, trimmed, under the preamble; each entry costs its frame', async () => {
    const source = sourceOf({ a: 'Use A.', b: '  Use B.\n  ', blank: ' \n ', none: undefined });
    const section = await collectServerInstructions(source, ['b', 'blank', 'a', 'none'], {
      tokenizer,
      maxTokens: 10_000,
    });
    expect(section.text).toBe(serverInstructionsPreamble + frameOf('b', 'Use B.') + frameOf('a', 'Use A.'));
    expect(section.entries).toEqual([
      { server: 'b', tokens: length(frameOf('b', 'Use B.')), truncated: false, status: 'included' },
      { server: 'blank', tokens: 0, truncated: false, status: 'none' },
      { server: 'a', tokens: length(frameOf('a', 'Use A.')), truncated: false, status: 'included' },
      { server: 'none', tokens: 0, truncated: false, status: 'none' },
    ]);
  });

  it('a section that is exactly maxTokens long fits whole', async () => {
    const source = sourceOf({ a: 'Use A.' });
    const exact = preamble + length(frameOf('a', 'Use A.'));
    const section = await collectServerInstructions(source, ['a'], { tokenizer, maxTokens: exact });
    expect(section.text).toBe(serverInstructionsPreamble + frameOf('a', 'Use A.'));
    expect(section.entries[0]?.status).toBe('included');
  });

  it('no instructions anywhere: an empty section', async () => {
    const section = await collectServerInstructions(sourceOf({ a: undefined }), ['a'], {
      tokenizer,
      maxTokens: 1000,
    });
    expect(section).toEqual({
      text: '',
      entries: [{ server: 'a', tokens: 0, truncated: false, status: 'none' }],
    });
  });

  it('fair shares: two long instructions each cut within half, marked with exactly what was left out', async () => {
    const [alpha, beta] = [lines(40, 'Alpha'), lines(40, 'Beta')];
    const source = sourceOf({ a: alpha, gap: undefined, b: beta });
    const section = await collectServerInstructions(source, ['a', 'gap', 'b'], {
      tokenizer,
      maxTokens: preamble + 600,
    });
    // Half of the 600 each, less 4: a cut's overhead is reserved with a 5-digit marker. a's cut
    // stays where the share ends (no line end within 3 % of it); b's moves back to a line end.
    const keptA = `${lines(12, 'Alpha')}\nAlpha r`;
    const keptB = `${lines(13, 'Beta')}\n`;
    expect([length(alpha), length(keptA), length(beta), length(keptB)]).toEqual([590, 178, 550, 173]);
    const frameA = frameOf('a', keptA + markerOf(412, 590));
    const frameB = frameOf('b', keptB + markerOf(377, 550));
    expect(section.text).toBe(serverInstructionsPreamble + frameA + frameB);
    expect(section.entries).toEqual([
      { server: 'a', tokens: 296, truncated: true, status: 'truncated' },
      { server: 'gap', tokens: 0, truncated: false, status: 'none' },
      { server: 'b', tokens: 291, truncated: true, status: 'truncated' },
    ]);
    expect([length(frameA), length(frameB)]).toEqual([296, 291]);
  });

  it('a share too small for a useful cut is given up, the lowest-ranked first: the other shown whole', async () => {
    const source = sourceOf({ long: lines(40, 'Alpha'), short: 'Use S.' });
    const maxTokens = preamble + length(frameOf('short', 'Use S.')) + 20;
    const section = await collectServerInstructions(source, ['short', 'long'], { tokenizer, maxTokens });
    expect(section.text).toBe(serverInstructionsPreamble + frameOf('short', 'Use S.'));
    expect(section.entries).toEqual([
      { server: 'short', tokens: length(frameOf('short', 'Use S.')), truncated: false, status: 'included' },
      { server: 'long', tokens: 0, truncated: false, status: 'omitted-budget' },
    ]);
  });

  it('a share too small for a useful cut is given up even when it ranks first: the one after it still shown whole', async () => {
    const source = sourceOf({ long: lines(40, 'Alpha'), short: 'Use S.' });
    const maxTokens = preamble + length(frameOf('short', 'Use S.')) + 20;
    const section = await collectServerInstructions(source, ['long', 'short'], { tokenizer, maxTokens });
    expect(section.text).toBe(serverInstructionsPreamble + frameOf('short', 'Use S.'));
    expect(section.entries).toEqual([
      { server: 'long', tokens: 0, truncated: false, status: 'omitted-budget' },
      { server: 'short', tokens: length(frameOf('short', 'Use S.')), truncated: false, status: 'included' },
    ]);
  });

  it('a server that fails is an error entry with its code; a throw that is no ContextError an INTERNAL_ERROR', async () => {
    const source = sourceOf({
      down: new ContextError('CONNECT_FAILED', 'connection refused'),
      broken: new TypeError('bad state'),
      a: 'Use A.',
    });
    const section = await collectServerInstructions(source, ['down', 'broken', 'a'], {
      tokenizer,
      maxTokens: 1000,
    });
    expect(section.text).toBe(serverInstructionsPreamble + frameOf('a', 'Use A.'));
    expect(section.entries.slice(0, 2)).toEqual([
      {
        server: 'down',
        tokens: 0,
        truncated: false,
        status: 'error',
        error: { code: 'CONNECT_FAILED', message: 'connection refused' },
      },
      {
        server: 'broken',
        tokens: 0,
        truncated: false,
        status: 'error',
        error: { code: 'INTERNAL_ERROR', message: 'TypeError: bad state' },
      },
    ]);
  });

  it('refuses a maxTokens that is not a positive integer, naming it', async () => {
    for (const maxTokens of [0, -5, 1.5, Number.NaN]) {
      await expect(collectServerInstructions(sourceOf({}), [], { tokenizer, maxTokens })).rejects.toThrow(
        expect.objectContaining({
          code: 'INVALID_OPTION',
          message: 'options.maxTokens must be a positive integer',
          field: 'options.maxTokens',
        }),
      );
    }
  });

  it('when the joined section counts more than its parts, the largest share gives up the excess', async () => {
    // A tokenizer whose count of a text with frames after the preamble is 5 tokens more per
    // frame than its characters: the joins merge the other way than a rendering expects.
    const joins: Tokenizer = {
      ...tokenizer,
      count: async (text) => length(text) + 5 * (text.split('\n\n<mcp-server-instructions').length - 1),
    };
    // No line ends: every cut stays where its share ends. c is ranked last and given up.
    const source = sourceOf({ a: 'alpha '.repeat(100), b: 'beta '.repeat(100), c: 'gamma '.repeat(100) });
    const maxTokens = preamble + 300;
    const section = await collectServerInstructions(source, ['a', 'b', 'c'], { tokenizer: joins, maxTokens });
    expect(await joins.count(section.text)).toBe(maxTokens);
    const [a, b, c] = section.entries;
    expect(c).toEqual({ server: 'c', tokens: 0, truncated: false, status: 'omitted-budget' });
    expect(a).toMatchObject({ status: 'truncated', truncated: true });
    expect(b).toMatchObject({ status: 'truncated', truncated: true });
    // Equal shares of 150, each cut using 146 (its marker was reserved with 5-digit counts): the
    // two joins' 10 tokens left the first rendering 2 over, and the first of the largest shares
    // gave them up.
    expect([a?.tokens, b?.tokens]).toEqual([144, 146]);
  });

  it('when no rendering fits within the refinements, nothing is injected rather than too much', async () => {
    const overcount: Tokenizer = {
      ...tokenizer,
      // The preamble alone counts true; the rendered section never fits.
      count: async (text) =>
        length(text) +
        (text.startsWith(`${serverInstructionsPreamble}<mcp-server-instructions`) ? 10_000 : 0),
    };
    const section = await collectServerInstructions(sourceOf({ a: 'Use A.' }), ['a'], {
      tokenizer: overcount,
      maxTokens: 1000,
    });
    expect(section).toEqual({
      text: '',
      entries: [{ server: 'a', tokens: 0, truncated: false, status: 'omitted-budget' }],
    });
  });
});
