import { ContextError } from '../errors.js';

/** The tiktoken encodings this library ships support for. */
export type TokenizerEncoding = 'o200k_base' | 'cl100k_base';

// Prefixes of OpenAI model names and their encodings; first match wins, so longer prefixes come first.
const modelPrefixes: readonly (readonly [string, TokenizerEncoding])[] = [
  ['gpt-4o', 'o200k_base'],
  ['gpt-4.1', 'o200k_base'],
  ['gpt-4.5', 'o200k_base'],
  ['gpt-5', 'o200k_base'],
  ['o1', 'o200k_base'],
  ['o3', 'o200k_base'],
  ['o4', 'o200k_base'],
  ['chatgpt-4o', 'o200k_base'],
  ['gpt-4', 'cl100k_base'],
  ['gpt-3.5', 'cl100k_base'],
  ['text-embedding-3', 'cl100k_base'],
  ['text-embedding-ada-002', 'cl100k_base'],
];

/**
 * The encoding for a model name (`gpt-4o-mini` → `o200k_base`, `gpt-4-turbo` → `cl100k_base`).
 * Models of other vendors (Claude, Gemini, Llama) tokenize differently: they get `o200k_base`,
 * and the budget's `safetyMargin` covers the difference.
 */
export function encodingForModel(model: string): TokenizerEncoding {
  if (typeof model !== 'string' || model.length === 0) {
    throw new ContextError('INVALID_OPTION', 'model must be a non-empty string', {
      field: 'model',
      value: model,
    });
  }
  const name = model.toLowerCase().replace(/^openai\//, '');
  for (const [prefix, encoding] of modelPrefixes) {
    if (name === prefix || name.startsWith(`${prefix}-`) || name.startsWith(`${prefix}.`)) return encoding;
  }
  return 'o200k_base';
}
