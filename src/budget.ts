// The `mcp-resource-context/budget` entry: token counting and budgeting helpers: the encoding for a model, the smallest useful cut of a pin, server instructions within a budget, and the tokenizer's options.
// Any new export added here becomes public API. Use named exports, not wildcards.

export {
  collectServerInstructions,
  type InstructionSource,
  type ServerInstructions,
  type ServerInstructionsEntry,
  type ServerInstructionsOptions,
  serverInstructionsPreamble,
} from './budget/collect-server-instructions.js';
export { encodingForModel, type TokenizerEncoding } from './budget/encoding-for-model.js';
export { type CutTarget, smallestUsefulCut } from './budget/smallest-useful-cut.js';
export type { TiktokenTokenizerOptions } from './budget/tiktoken-tokenizer.js';
export type { BoundedEncoding } from './budget/tokenizer.js';
