import type { ContextBlock, InstructionsEntry } from '../types.js';

/** The framed server instructions of a turn, counted, with what became of each server's. */
export interface InstructionsSection {
  readonly text: string;
  readonly tokens: number;
  readonly entries: readonly InstructionsEntry[];
}

/**
 * Puts the instructions section right after the preamble: it is as stable as the pipeline's
 * pins, so the byte-identical prefix stays long. Without resources there is nothing to instruct
 * about: the section goes too, and its entries say so. Blocks meet at "\n\n" before "<": no
 * token spans a join, so the section's count adds to the resources' exactly.
 */
export function addInstructionsBlock(
  context: { readonly blocks: readonly ContextBlock[]; readonly usedTokens: number },
  instructions: InstructionsSection | undefined,
): { blocks: ContextBlock[]; usedTokens: number; instructions?: readonly InstructionsEntry[] } {
  if (!instructions) return { blocks: [...context.blocks], usedTokens: context.usedTokens };
  const entries = instructions.entries.length > 0 ? { instructions: instructions.entries } : {};
  if (context.blocks.length === 0) {
    return { blocks: [], usedTokens: context.usedTokens, instructions: withoutInstructions(instructions) };
  }
  if (!instructions.text) return { blocks: [...context.blocks], usedTokens: context.usedTokens, ...entries };
  const [preamble, ...rest] = context.blocks;
  return {
    blocks: [preamble as ContextBlock, { kind: 'instructions', text: instructions.text }, ...rest],
    usedTokens: context.usedTokens + instructions.tokens,
    ...entries,
  };
}

// --- Internal helpers ---

/** Entries for a turn that injected nothing: the instructions went with it. */
function withoutInstructions(instructions: InstructionsSection): readonly InstructionsEntry[] | undefined {
  if (instructions.entries.length === 0) return undefined;
  return instructions.entries.map((entry) =>
    entry.status === 'included' || entry.status === 'truncated'
      ? { ...entry, status: 'omitted-budget', tokens: 0, truncated: false }
      : entry,
  );
}
