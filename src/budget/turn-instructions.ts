import type { InstructionsEntry } from '../types.js';
import { collectServerInstructions, type InstructionSource } from './collect-server-instructions.js';
import type { Tokenizer } from './tokenizer.js';

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
  servers: InstructionSource,
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
