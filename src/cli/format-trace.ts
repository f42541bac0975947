import type { InjectionTrace } from '../index.js';
import { paintStatus, type Style } from './create-style.js';
import { formatTable } from './format-table.js';

const barWidth = 40;

/** A turn's trace for people: one row per attachment, then the budget as a bar. */
export function formatTrace(trace: InjectionTrace, style?: Style): string {
  const rows = trace.entries.map((entry) => [
    entry.scope,
    entry.status,
    entry.tokens,
    // An extrapolated count keeps its "~", as the trace and the markers say it.
    entry.originalTokensEstimated ? `~${entry.originalTokens}` : entry.originalTokens,
    entry.mimeType ?? '-',
    entry.uri,
    entry.error ? `${entry.error.code}: ${entry.error.message}` : (entry.reason ?? ''),
  ]);
  const table = formatTable(
    ['scope', 'status', 'tokens', 'of', 'mime', 'uri', 'why'],
    rows,
    (text, row, column) => {
      if (!style) return text;
      if (row < 0) return style.bold(text);
      return column === 1 ? paintStatus(style, text) : text;
    },
  );
  return `${table}\n${formatBudgetBar(trace)}`;
}

/**
 * `budget [#####-----] 1480 / 1500 tokens (98.7%) of tiktoken:o200k_base`, one letter per
 * injected attachment; an estimated count (Claude's) and a margin held back are said.
 */
export function formatBudgetBar(trace: InjectionTrace): string {
  const { maxTokens, usedTokens } = trace.budget;
  const injected = trace.entries.filter((entry) => entry.tokens > 0);
  let bar = '';
  for (const [index, entry] of injected.entries()) {
    const width = Math.round((entry.tokens / maxTokens) * barWidth);
    bar += String.fromCharCode(65 + (index % 26)).repeat(width);
  }
  bar = bar.slice(0, barWidth).padEnd(barWidth, '.');
  const legend = injected
    .map((entry, index) => `${String.fromCharCode(65 + (index % 26))}=${entry.uri}`)
    .join('  ');
  const percent = ((usedTokens / maxTokens) * 100).toFixed(1);
  const { tokenizer, exact, margin } = trace.budget;
  const caveats = [
    ...(exact ? [] : ['estimated']),
    ...(margin > 0 ? [`${Math.round(margin * 100)}% held back`] : []),
  ];
  const counted = `of ${tokenizer}${caveats.length > 0 ? ` (${caveats.join(', ')})` : ''}`;
  return `budget [${bar}] ${usedTokens} / ${maxTokens} tokens (${percent}%) ${counted}${legend ? `\n       ${legend}` : ''}`;
}
