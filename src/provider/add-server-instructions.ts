import type { Tokenizer } from '../budget/tokenizer.js';
import type { McpServerRegistry } from '../mcp/mcp-server-registry.js';
import { collectServerInstructions } from '../prompts/collect-server-instructions.js';
import type { ContextBlock, InstructionsEntry } from '../types.js';

export interface TurnInstructions {
  readonly text: string;
  readonly tokens: number;
  readonly entries: readonly InstructionsEntry[];
}

/**
 * The instructions section for the servers a turn injects from, within `maxTokens` (and never
 * more than a quarter of the turn's budget: resources come first).
 */
export async function collectTurnInstructions(
  servers: McpServerRegistry,
  serverNames: readonly string[],
  tokenizer: Tokenizer,
  maxTokens: number,
  turnMaxTokens: number,
): Promise<TurnInstructions> {
  const cap = Math.min(maxTokens, Math.floor(turnMaxTokens / 4));
  if (serverNames.length === 0 || cap <= 0) return { text: '', tokens: 0, entries: [] };
  const section = await collectServerInstructions(servers, serverNames, { tokenizer, maxTokens: cap });
  const tokens = section.text ? await tokenizer.count(section.text) : 0;
  return { text: section.text, tokens, entries: section.entries };
}

/**
 * Puts the section right after the preamble: it is as stable as the pipeline's pins, so the
 * byte-identical prefix stays long. Without resources there is nothing to instruct about.
 */
export function addInstructionsBlock(
  blocks: readonly ContextBlock[],
  instructions: TurnInstructions,
): ContextBlock[] {
  if (blocks.length === 0 || !instructions.text) return [...blocks];
  const [preamble, ...rest] = blocks;
  return [preamble as ContextBlock, { kind: 'instructions', text: instructions.text }, ...rest];
}

/** Entries for a turn that injected nothing: the instructions went with it. */
export function withoutInstructions(instructions: TurnInstructions): TurnInstructions {
  return {
    text: '',
    tokens: 0,
    entries: instructions.entries.map((entry) =>
      entry.status === 'included' || entry.status === 'truncated'
        ? { ...entry, status: 'omitted-budget', tokens: 0, truncated: false }
        : entry,
    ),
  };
}
