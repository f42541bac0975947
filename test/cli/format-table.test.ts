import { describe, expect, it } from 'vitest';
import { formatTable } from '../../src/cli/format-table.js';
import { formatTrace } from '../../src/cli/format-trace.js';
import type { InjectionTrace } from '../../src/types.js';

describe('formatTable', () => {
  it('aligns columns by terminal width: a CJK character takes two columns', () => {
    const table = formatTable(
      ['uri', 'tokens'],
      [
        ['docs://日本語.md', 12],
        ['docs://abc.md', 3456],
      ],
    );
    const [header, first, second] = table.split('\n');
    // "docs://日本語.md" is 13 characters but 16 columns wide, like "docs://abc.md" + 3.
    expect(first).toBe('docs://日本語.md      12');
    expect(second).toBe('docs://abc.md       3456');
    expect(header).toBe(`uri${' '.repeat(15)}tokens`);
  });

  it('right-aligns a column of estimates ("~1200") as numbers', () => {
    expect(formatTable(['of'], [['~1200'], [7]]).split('\n')).toEqual(['   of', '~1200', '    7']);
  });
});

describe('formatTrace', () => {
  it('keeps the "~" of an estimated original count in the "of" column, as the trace says', () => {
    const trace: InjectionTrace = {
      turnId: 't',
      pipelineId: 'support',
      startedAt: '',
      durationMs: 1,
      budget: { maxTokens: 1000, usedTokens: 500, tokenizer: 'tiktoken:o200k_base', exact: true, margin: 0 },
      entries: [
        {
          scope: 'message',
          server: 'docs',
          uri: 'docs://big',
          mimeType: 'text/plain',
          status: 'truncated',
          tokens: 500,
          originalTokens: 120_000,
          originalTokensEstimated: true,
          bytes: 480_000,
          cache: 'miss',
          durationMs: 1,
          superseded: [],
          omittedContents: [],
        },
      ],
    };
    expect(formatTrace(trace).split('\n')[1]).toMatch(/truncated\s+500\s+~120000\s+text\/plain/);
    expect(formatTrace(trace)).toContain('500 / 1000 tokens (50.0%) of tiktoken:o200k_base\n');
    const estimated = {
      ...trace,
      budget: { ...trace.budget, tokenizer: 'claude:claude-4.7@2026-12-04', exact: false, margin: 0.15 },
    };
    expect(formatTrace(estimated)).toContain(
      '500 / 1000 tokens (50.0%) of claude:claude-4.7@2026-12-04 (estimated, 15% held back)\n',
    );
  });
});
