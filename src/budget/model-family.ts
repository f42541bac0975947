/** Whose tokenizer a model counts with: each family is budgeted in its own tokens. */
export type ModelFamily = 'openai' | 'claude' | 'gemini' | 'open';

// OpenAI's model names (see encoding-for-model.ts); a vendor prefix such as `openai/` is dropped.
const openAiPrefixes = ['gpt-', 'o1', 'o3', 'o4', 'chatgpt-', 'text-embedding-', 'davinci', 'babbage'];

/**
 * The family of a model id: `claude-opus-4-7` (also `anthropic/…`, Bedrock's
 * `anthropic.claude-…`) is `claude`, `gemini-2.5-flash` (also `models/…`, `google/…`) is
 * `gemini`, OpenAI's names are `openai`, and any other is an open model (`open`), whose
 * tokenizer.json the host provides.
 */
export function modelFamilyOf(modelId: string): ModelFamily {
  const name = modelId.toLowerCase();
  const bare = name.slice(name.lastIndexOf('/') + 1);
  if (/(^|[./])claude-/.test(name) || bare.startsWith('claude')) return 'claude';
  if (bare.startsWith('gemini')) return 'gemini';
  if (openAiPrefixes.some((prefix) => bare === prefix || bare.startsWith(prefix))) return 'openai';
  return 'open';
}
