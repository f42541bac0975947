import { describe, expect, it } from 'vitest';
import { addInstructionsBlock, type InstructionsSection } from '../../src/render/add-instructions-block.js';
import type { ContextBlock, InstructionsEntry } from '../../src/types.js';

const provenance = {
  scope: 'pipeline' as const,
  server: 'docs',
  uri: 'docs://a',
  mimeType: 'text/plain',
  sha256: 'a'.repeat(64),
  truncated: false,
};
const preamble: ContextBlock = { kind: 'preamble', text: 'PREAMBLE\n\n' };
const first: ContextBlock = { kind: 'resource', text: '<frame a>\n\n', provenance };
const second: ContextBlock = {
  kind: 'resource',
  text: '<frame b>\n\n',
  provenance: { ...provenance, uri: 'docs://b' },
};
const context = { blocks: [preamble, first, second], usedTokens: 40 };

const entries: InstructionsEntry[] = [
  { server: 'docs', tokens: 7, truncated: false, status: 'included' },
  { server: 'wiki', tokens: 5, truncated: true, status: 'truncated' },
  { server: 'quiet', tokens: 0, truncated: false, status: 'none' },
  { server: 'broken', tokens: 0, truncated: false, status: 'error', error: { code: 'E', message: 'm' } },
];
const section: InstructionsSection = { text: '<instructions>\n\n', tokens: 12, entries };

describe('addInstructionsBlock', () => {
  it('without instructions, returns a copy of the blocks and the same count, and no instructions field', () => {
    const result = addInstructionsBlock(context, undefined);
    expect(result).toStrictEqual({ blocks: [preamble, first, second], usedTokens: 40 });
    expect(result.blocks).not.toBe(context.blocks);
  });

  it('puts the section right after the preamble and adds its tokens to the count', () => {
    expect(addInstructionsBlock(context, section)).toStrictEqual({
      blocks: [preamble, { kind: 'instructions', text: '<instructions>\n\n' }, first, second],
      usedTokens: 52,
      instructions: entries,
    });
  });

  it('a section without entries adds no instructions field', () => {
    expect(addInstructionsBlock(context, { ...section, entries: [] })).toStrictEqual({
      blocks: [preamble, { kind: 'instructions', text: '<instructions>\n\n' }, first, second],
      usedTokens: 52,
    });
  });

  it('an empty section text adds no block and no tokens, but keeps the entries', () => {
    const result = addInstructionsBlock(context, { text: '', tokens: 0, entries });
    expect(result).toStrictEqual({
      blocks: [preamble, first, second],
      usedTokens: 40,
      instructions: entries,
    });
    expect(result.blocks).not.toBe(context.blocks);
  });

  it('without resources the section goes too: included and truncated entries become omitted-budget', () => {
    expect(addInstructionsBlock({ blocks: [], usedTokens: 0 }, section)).toStrictEqual({
      blocks: [],
      usedTokens: 0,
      instructions: [
        { server: 'docs', tokens: 0, truncated: false, status: 'omitted-budget' },
        { server: 'wiki', tokens: 0, truncated: false, status: 'omitted-budget' },
        { server: 'quiet', tokens: 0, truncated: false, status: 'none' },
        {
          server: 'broken',
          tokens: 0,
          truncated: false,
          status: 'error',
          error: { code: 'E', message: 'm' },
        },
      ],
    });
  });

  it('without resources and without entries, the result carries no entries', () => {
    expect(addInstructionsBlock({ blocks: [], usedTokens: 3 }, { ...section, entries: [] })).toStrictEqual({
      blocks: [],
      usedTokens: 3,
      instructions: undefined,
    });
  });
});
