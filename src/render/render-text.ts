import type { ContextBlock } from '../types.js';

/** The plain-text rendering of a turn's context: the text whose tokens the budget bounds. */
export function renderText(blocks: readonly ContextBlock[]): string {
  return blocks.map((block) => block.text).join('');
}
