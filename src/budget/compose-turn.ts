import { addInstructionsBlock, type InstructionsSection } from '../render/add-instructions-block.js';
import { renderOrder } from '../render/render-order.js';
import type { ContextBlock, InstructionsEntry } from '../types.js';
import type { ComposableAttachment } from './composable-attachment.js';
import { type ComposedAttachment, type ComposeOptions, composeContext } from './compose-context.js';
import type { BudgetRank } from './rank-for-budget.js';
import type { Tokenizer } from './tokenizer.js';

/** An attachment ready for the budget, in rank order: the budget step adds what it made of it. */
export interface BudgetedAttachment {
  readonly attachment: BudgetRank;
  readonly fate: { readonly composable: ComposableAttachment };
  composed: ComposedAttachment | undefined;
}

/** The turn's context: its blocks, their exact count, and what became of each server's instructions. */
export interface TurnContext {
  readonly blocks: ContextBlock[];
  readonly usedTokens: number;
  readonly instructions?: readonly InstructionsEntry[];
}

/**
 * Steps 5 and 6, budget and render, for a turn's ready attachments (ranked): plan, cut, frame and
 * count within what the server instructions (paid first) leave, rendered stablest scope first;
 * then the instructions are placed. Each attachment gets its composition.
 */
export async function composeTurn(
  ready: readonly BudgetedAttachment[],
  tokenizer: Tokenizer,
  options: Omit<ComposeOptions, 'renderOrder'>,
  instructions: InstructionsSection | undefined,
): Promise<TurnContext> {
  const composed = await composeContext(
    ready.map((one) => one.fate.composable),
    tokenizer,
    {
      ...options,
      maxTokens: options.maxTokens - (instructions?.tokens ?? 0),
      ...(instructions?.text && { leading: { text: instructions.text, tokens: instructions.tokens } }),
      renderOrder: renderOrder(ready.map((one) => one.attachment.scope)),
    },
  );
  // composeContext answers one composition per attachment, in the order given.
  ready.forEach((one, index) => {
    one.composed = composed.attachments[index];
  });
  return addInstructionsBlock(composed, instructions);
}
