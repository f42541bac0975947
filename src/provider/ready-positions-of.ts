import type { TurnItem } from './turn-item.js';

/** Where the items that are ready for the budget stand in the turn's items. */
export function readyPositionsOf(items: readonly TurnItem[]): number[] {
  let ready = 0;
  for (const item of items) if (item.fate.kind === 'ready') ready++;
  // Counted first: one array of the right length, not one grown by pushes, every turn.
  const positions = new Array<number>(ready);
  let next = 0;
  for (let position = 0; position < items.length; position++)
    if (items[position]?.fate.kind === 'ready') positions[next++] = position;
  return positions;
}
