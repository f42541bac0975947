// The `mcp-resource-context/budget` entry: token counting and budgeting helpers: the encoding for a model, a tokenizer per model family (Claude calibrated, Gemini, Hugging Face), the smallest useful cut of a pin, server instructions within a budget, and the tokenizer's options.
// Any new export added here becomes public API. Use named exports, not wildcards.

export {
  type ClaudeCalibration,
  type ClaudeTokenizerCalibration,
  claudeCalibrationFor,
} from './budget/claude-calibration.js';
export { claudeCalibrationTable } from './budget/claude-calibration-table.js';
export { type ClaudeTokenizerOptions, createClaudeTokenizer } from './budget/claude-tokenizer.js';
export {
  collectServerInstructions,
  type InstructionSource,
  type ServerInstructions,
  type ServerInstructionsEntry,
  type ServerInstructionsOptions,
  serverInstructionsPreamble,
} from './budget/collect-server-instructions.js';
export { encodingForModel, type TokenizerEncoding } from './budget/encoding-for-model.js';
export { createGeminiTokenizer, type GeminiTokenizerOptions } from './budget/gemini-tokenizer.js';
export {
  createHuggingFaceTokenizer,
  type HuggingFaceTokenizerOptions,
} from './budget/hugging-face-tokenizer.js';
export { type ModelFamily, modelFamilyOf } from './budget/model-family.js';
export type { ModelTokenizersOptions } from './budget/model-tokenizers.js';
export { type CutTarget, smallestUsefulCut } from './budget/smallest-useful-cut.js';
export type { TiktokenTokenizerOptions } from './budget/tiktoken-tokenizer.js';
export type { BoundedEncoding } from './budget/tokenizer.js';
