import type { ClaudeCalibration } from './claude-calibration.js';
import { claudeCalibrationFor } from './claude-calibration.js';
import { claudeCalibrationTable } from './claude-calibration-table.js';
import { encodeSliceWithin } from './encode-slice-within.js';
import { scriptShares } from './script-shares.js';
import { createTiktokenTokenizer } from './tiktoken-tokenizer.js';
import type { Tokenizer } from './tokenizer.js';

export interface ClaudeTokenizerOptions {
  /** The Claude model id, e.g. `claude-opus-4-7`: it picks the calibration (see claudeCalibrationFor). */
  readonly model: string;
  /** Default: the table this library ships (claude-calibration-table.ts). */
  readonly calibration?: ClaudeCalibration;
  /** The o200k_base tokenizer to count with; default a new one, disposed with this one. */
  readonly o200k?: Tokenizer;
}

// Filler in an encoding: it makes `tokens.length` the calibrated count, so that cuts taken in
// tokens are cuts in Claude's tokens; decoding drops it. No o200k token has this number.
const filler = 0xffff_ffff;

/**
 * Claude's tokens, estimated: o200k_base counts, times the calibrated factor of the text's
 * scripts (prose, code, CJK, weighed by scriptShares), rounded up. Not exact (`exact: false`):
 * the budget holds back the calibration's `margin`. Encodings are o200k tokens with filler
 * spread among them up to the calibrated count; it is not `piecewise` (a blend of factors does
 * not add up across joins), so the budget counts whole renderings.
 */
export function createClaudeTokenizer(options: ClaudeTokenizerOptions): Tokenizer {
  const table = options.calibration ?? claudeCalibrationTable;
  const calibration = claudeCalibrationFor(options.model, table);
  const base = options.o200k ?? createTiktokenTokenizer();
  const { factors } = calibration;
  const calibrated = (o200k: number, text: string) => {
    if (o200k === 0) return 0;
    const shares = scriptShares(text);
    const factor = shares.prose * factors.prose + shares.code * factors.code + shares.cjk * factors.cjk;
    return Math.ceil(o200k * factor);
  };
  return {
    name: `claude:${calibration.id}@${table.date}`,
    exact: false,
    margin: calibration.margin,
    encode: async (text) => withFiller(await base.encode(text), calibrated, text),
    encodeWithin: (text, limitTokens, from) =>
      encodeSliceWithin(text, limitTokens, from, async (slice) =>
        withFiller(await base.encode(slice), calibrated, slice),
      ),
    decode: (tokens) => base.decode(tokens.filter((token) => token !== filler)),
    count: async (text) => calibrated(await base.count(text), text),
    dispose: () => {
      if (!options.o200k) base.dispose();
    },
  };
}

// --- Internal helpers ---

/** `tokens` with filler spread evenly among them, to the calibrated count of `text`. */
function withFiller(
  tokens: Uint32Array,
  calibrated: (o200k: number, text: string) => number,
  text: string,
): Uint32Array {
  const total = calibrated(tokens.length, text);
  const padded = new Uint32Array(total);
  let at = 0;
  for (let index = 0; index < tokens.length; index++) {
    padded[at++] = tokens[index] as number;
    // After the i-th token, ceil(i × total / n) entries: fillers follow the token they stand for.
    const until = Math.ceil(((index + 1) * total) / tokens.length);
    while (at < until) padded[at++] = filler;
  }
  return padded;
}
