import { readFile } from 'node:fs/promises';
import { ContextError } from '../errors.js';
import { encodeSliceWithin } from './encode-slice-within.js';
import type { Tokenizer } from './tokenizer.js';

/** What hosts run to count open models' (and Gemini's) tokens: an optional peer dependency. */
export const huggingFaceTokenizersInstallCommand = 'npm install @huggingface/tokenizers@^0.2';

export interface HuggingFaceTokenizerOptions {
  /** The model's `tokenizer.json`: its path, or the parsed file. */
  readonly tokenizerJson: string | object;
  /** Its `tokenizer_config.json`, when the model has one: path or parsed (special tokens, BOS). */
  readonly tokenizerConfig?: string | object;
  /** Identity for caches and traces: `hf:<name>`. Default: the path; give one for a parsed file (else `tokenizer.json`). */
  readonly name?: string;
}

/** The part of @huggingface/tokenizers this uses. */
interface HuggingFaceEngine {
  encode(text: string, options: { add_special_tokens: boolean }): { ids: number[] };
  decode(ids: number[], options: { skip_special_tokens: boolean }): string;
}

/**
 * A Tokenizer on a Hugging Face `tokenizer.json` (Llama, Qwen, Mistral, Gemma…), token for token
 * as the model's own tokenizer counts text, without special tokens (no BOS): exact. Bounded
 * encodings (encodeWithin) encode a slice as long as the limit needs. Encoded by
 * @huggingface/tokenizers (pure JavaScript, an optional peer dependency loaded only here). Not
 * `piecewise`: SentencePiece-style vocabularies merge across spaces and newlines, so the
 * budget counts whole renderings.
 */
export async function createHuggingFaceTokenizer(options: HuggingFaceTokenizerOptions): Promise<Tokenizer> {
  // A vocabulary read from a file is loaded once per process (Gemma 3's: 33 MB of JSON, ~300 MB
  // in memory, seconds to load) and freed with its last user, as tiktoken's encoders are.
  const key =
    typeof options.tokenizerJson === 'string' && typeof (options.tokenizerConfig ?? '') === 'string'
      ? `${options.tokenizerJson}\u0000${options.tokenizerConfig ?? ''}`
      : undefined;
  let entry = key === undefined ? undefined : shared.get(key);
  if (!entry) {
    const made = { engine: loadVocabulary(options), users: 0 };
    if (key !== undefined) {
      shared.set(key, made);
      made.engine.catch(() => shared.delete(key));
    }
    entry = made;
  }
  const held = entry;
  held.users++;
  let engine: HuggingFaceEngine;
  try {
    engine = await held.engine;
  } catch (error) {
    held.users--;
    throw error;
  }
  const name =
    options.name ?? (typeof options.tokenizerJson === 'string' ? options.tokenizerJson : 'tokenizer.json');
  const encode = (text: string) => engine.encode(text, { add_special_tokens: false }).ids;
  let disposed = false;
  return {
    name: `hf:${name}`,
    encode: async (text) => Uint32Array.from(text.length === 0 ? [] : encode(text)),
    decode: (tokens) =>
      tokens.length === 0
        ? ''
        : withoutCutCharacters(engine.decode(Array.from(tokens), { skip_special_tokens: false })),
    count: async (text) => (text.length === 0 ? 0 : encode(text).length),
    encodeWithin: (text, limitTokens, from) =>
      encodeSliceWithin(text, limitTokens, from, async (slice) =>
        Uint32Array.from(slice.length === 0 ? [] : encode(slice)),
      ),
    dispose: () => {
      if (disposed) return;
      disposed = true;
      if (--held.users === 0 && key !== undefined && shared.get(key) === held) shared.delete(key);
    },
  };
}

// --- Internal helpers ---

const shared = new Map<string, { readonly engine: Promise<HuggingFaceEngine>; users: number }>();

async function loadVocabulary(options: HuggingFaceTokenizerOptions): Promise<HuggingFaceEngine> {
  const [{ Tokenizer: Engine }, json, config] = await Promise.all([
    loadEngine(),
    readJson(options.tokenizerJson, 'tokenizerJson'),
    options.tokenizerConfig === undefined ? {} : readJson(options.tokenizerConfig, 'tokenizerConfig'),
  ]);
  try {
    return new Engine(withoutSpecialTokens(json), config) as HuggingFaceEngine;
  } catch (error) {
    throw new ContextError(
      'INVALID_OPTION',
      `tokenizerJson is not a tokenizer.json that @huggingface/tokenizers can load: ${messageOf(error)}`,
      { field: 'tokenizerJson' },
      error,
    );
  }
}

type EngineModule = { Tokenizer: new (json: object, config: object) => unknown };

async function loadEngine(): Promise<EngineModule> {
  try {
    return (await import('@huggingface/tokenizers')) as unknown as EngineModule;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const reason =
      code === 'ERR_MODULE_NOT_FOUND' ? 'it is not installed' : `it failed to load: ${messageOf(error)}`;
    throw new ContextError(
      'DEPENDENCY_MISSING',
      `counting with a tokenizer.json needs @huggingface/tokenizers, an optional peer dependency, and ${reason}; run: ${huggingFaceTokenizersInstallCommand}`,
      { value: '@huggingface/tokenizers' },
      error,
    );
  }
}

/**
 * The tokenizer.json without its special added tokens (`<bos>`, `<start_of_turn>`…): content that
 * spells one is counted as the plain text it is, as tiktoken's encode_ordinary does (never fewer
 * tokens than the model may see), and no cut shows a control token. The engine has no option for it.
 */
function withoutSpecialTokens(json: object): object {
  const added = (json as { added_tokens?: unknown }).added_tokens;
  if (!Array.isArray(added)) return json;
  return {
    ...json,
    added_tokens: added.filter((token) => (token as { special?: unknown }).special !== true),
  };
}

async function readJson(source: string | object, field: string): Promise<object> {
  if (typeof source !== 'string') return source;
  try {
    return JSON.parse(await readFile(source, 'utf8')) as object;
  } catch (error) {
    throw new ContextError('INVALID_OPTION', `${field} could not be read as JSON: ${messageOf(error)}`, {
      field,
      value: source,
    });
  }
}

/** A byte-fallback character cut at either end decodes to U+FFFD: dropped, as the interface promises. */
function withoutCutCharacters(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text.charCodeAt(start) === 0xfffd) start++;
  while (end > start && text.charCodeAt(end - 1) === 0xfffd) end--;
  return text.slice(start, end);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
